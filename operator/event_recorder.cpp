// The aggregating event recorder (see event_recorder.hpp).
#include "operator/event_recorder.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "client/model/time.hpp"

namespace rg::op {

namespace {

std::string object_key(const client::ObjectReference& o) {
  return fmt::format("{}\x1f{}\x1f{}\x1f{}\x1f{}", o.api_version, o.kind, o.namespace_, o.name,
                     o.uid);
}

}  // namespace

EventRecorder::EventRecorder(EventSink& sink, EventRecorderConfig config,
                             std::function<WallClock::time_point()> now)
    : sink_(sink), config_(std::move(config)), now_(std::move(now)) {}

std::uint64_t EventRecorder::suppressed() const {
  std::lock_guard lock(mutex_);
  return suppressed_;
}

bool EventRecorder::take_token(const std::string& key, WallClock::time_point now) {
  auto [it, inserted] = buckets_.try_emplace(key, Bucket{static_cast<double>(config_.burst), now});
  Bucket& bucket = it->second;
  const double refill = std::chrono::duration<double>(now - bucket.last).count() /
                        std::chrono::duration<double>(config_.refill).count();
  bucket.tokens = std::min(static_cast<double>(config_.burst), bucket.tokens + refill);
  bucket.last = now;
  if (bucket.tokens < 1) return false;
  bucket.tokens -= 1;
  return true;
}

boost::asio::awaitable<void> EventRecorder::record(const client::ObjectReference& object,
                                                   std::string_view type, std::string_view reason,
                                                   std::string_view message) {
  const auto now = now_();
  const std::string object_id = object_key(object);
  std::unique_lock lock(mutex_);
  if (!take_token(object_id, now)) {
    ++suppressed_;
    lock.unlock();
    spdlog::debug("event suppressed by the spam filter: {} {}/{}: {} {}", object.kind,
                  object.namespace_, object.name, reason, message);
    co_return;
  }
  const std::string key = fmt::format("{}\x1f{}\x1f{}\x1f{}", object_id, type, reason, message);
  client::Event event;
  bool repeat = false;
  if (auto hit = cache_.find(key); hit != cache_.end()) {
    lru_.splice(lru_.end(), lru_, hit->second);  // most recently used
    event = hit->second->second;
    event.count += 1;
    event.last_timestamp = client::format_time(now);
    repeat = true;
  } else {
    event.metadata.name = fmt::format(
        "{}.{:x}", object.name,
        std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count());
    event.metadata.namespace_ = object.namespace_.empty() ? "default" : object.namespace_;
    event.involved_object = object;
    event.reason = reason;
    event.message = message;
    event.type = type;
    event.source.component = config_.component;
    event.reporting_component = config_.component;
    event.reporting_instance = config_.instance;
    event.first_timestamp = event.last_timestamp = client::format_time(now);
    event.count = 1;
  }
  lock.unlock();
  try {
    if (repeat) {
      co_await sink_.update_count(event);
    } else {
      co_await sink_.create(event);
    }
  } catch (const std::exception& e) {
    spdlog::warn("could not record event {} on {} {}/{}: {}", reason, object.kind,
                 object.namespace_, object.name, e.what());
    co_return;
  }
  lock.lock();
  if (auto hit = cache_.find(key); hit != cache_.end()) {
    hit->second->second = std::move(event);
  } else {
    lru_.emplace_back(key, std::move(event));
    cache_[key] = std::prev(lru_.end());
    if (lru_.size() > config_.cache_size) {
      cache_.erase(lru_.front().first);
      lru_.pop_front();
    }
  }
}

}  // namespace rg::op
