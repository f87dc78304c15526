// WorkLoop: a controller's queue of keys to sync, now or at a time (a tiny single-strand
// cousin of client-go's delaying workqueue: a key waiting is queued once, a key asked for at
// several times runs at the earliest). run() calls the sync function for every due key, in
// slices of at most 5 ms between which the strand runs everything else; a sync that throws is
// retried after a short delay. Not thread-safe: lives on the cluster's strand.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace rg::sim::cluster {

class WorkLoop {
 public:
  using Clock = std::chrono::steady_clock;
  using Sync = std::function<void(const std::string& key)>;

  /// `name` appears in log lines; `retry_delay` is the wait after a failed sync.
  WorkLoop(const boost::asio::any_io_executor& executor, std::string name,
           Clock::duration retry_delay = std::chrono::milliseconds(50));

  /// Queues `key` to sync as soon as possible.
  void add(const std::string& key);
  /// Queues `key` to sync at `when` (or earlier if already queued earlier).
  void add_at(const std::string& key, Clock::time_point when);

  /// Syncs keys as they become due, until cancelled.
  boost::asio::awaitable<void> run(Sync sync);

 private:
  void wake();

  std::string name_;
  Clock::duration retry_delay_;
  boost::asio::steady_timer timer_;
  bool waiting_ = false;
  /// The longest run of syncs before the strand is yielded to others.
  static constexpr Clock::duration kSlice = std::chrono::milliseconds(5);

  std::set<std::string> ready_;
  std::vector<std::string> batch_;  ///< taken from ready_; synced a slice at a time
  std::size_t next_ = 0;            ///< batch_[next_] is the next to sync
  std::multimap<Clock::time_point, std::string> scheduled_;
  std::unordered_map<std::string, Clock::time_point> due_;  // key -> its entry in scheduled_
};

}  // namespace rg::sim::cluster
