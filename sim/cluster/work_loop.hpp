// WorkLoop: a controller's queue of keys to sync, now or at a time (a tiny single-strand
// cousin of client-go's delaying workqueue: a key waiting is queued once, a key asked for at
// several times runs at the earliest). run() calls the sync function for every due key; a
// sync that throws is retried after a short delay. Not thread-safe: lives on the cluster's
// strand.
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
  std::set<std::string> ready_;
  std::multimap<Clock::time_point, std::string> scheduled_;
  std::unordered_map<std::string, Clock::time_point> due_;  // key -> its entry in scheduled_
};

}  // namespace rg::sim::cluster
