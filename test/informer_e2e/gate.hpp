// Gate: holds an event handler (on an io thread) until the test releases it.
#pragma once

#include <condition_variable>
#include <mutex>

namespace rg::informer::e2e {

class Gate {
 public:
  void wait() {
    std::unique_lock lock(mutex_);
    released_cv_.wait(lock, [this] { return released_; });
  }
  void release() {
    std::lock_guard lock(mutex_);
    released_ = true;
    released_cv_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable released_cv_;
  bool released_ = false;
};

}  // namespace rg::informer::e2e
