// Recorder: an event handler for the end-to-end tests that counts what it is told, remembers
// each key's last notification, and checks on every call that the informer's cache already
// holds that state (or a newer one): the cache is updated before handlers are notified
// (handlers run after the fact, so a newer state -- or, after a delete, none -- is fine).
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "client/model/pod.hpp"
#include "informer/event_handler.hpp"
#include "informer/indexer.hpp"
#include "informer/object_key.hpp"

namespace rg::informer::e2e {

// What a Recorder's handler writes to (shared with it, so the handler may outlive the Recorder).
struct RecorderState : std::enable_shared_from_this<RecorderState> {
  explicit RecorderState(const Indexer<client::Pod>& cache) : cache_(cache) {}

  ResourceEventHandlerFuncs<client::Pod> handler() {
    ResourceEventHandlerFuncs<client::Pod> funcs;
    auto self = shared_from_this();
    funcs.on_add = [this, self](const std::shared_ptr<const client::Pod>& pod, bool initial) {
      check_cached(*pod);
      std::lock_guard lock(mutex_);
      ++adds;
      if (initial) ++initial_adds;
      last_[meta_namespace_key(*pod)] = "add@" + pod->metadata.resource_version;
    };
    funcs.on_update = [this, self](const std::shared_ptr<const client::Pod>& old_pod,
                                   const std::shared_ptr<const client::Pod>& new_pod) {
      check_cached(*new_pod);
      std::lock_guard lock(mutex_);
      ++updates;
      if (number(old_pod->metadata.resource_version) > number(new_pod->metadata.resource_version)) {
        ++backwards;
      }
      last_[meta_namespace_key(*new_pod)] = "update@" + new_pod->metadata.resource_version;
    };
    funcs.on_delete = [this, self](const ObjectOrTombstone<client::Pod>& object) {
      const std::string key = key_of<client::Pod>(object);
      {
        // Deleted from the cache before the handler hears of it (unless re-created since).
        auto cached = cache_.get_by_key(key);
        auto last = object_of<client::Pod>(object);
        if (cached && last &&
            number(cached->metadata.resource_version) <= number(last->metadata.resource_version)) {
          ++cache_behind;
        }
      }
      std::lock_guard lock(mutex_);
      ++deletes;
      if (is_tombstone<client::Pod>(object)) ++tombstones;
      last_[key] = "delete";
    };
    return funcs;
  }

  std::string last(const std::string& key) const {
    std::lock_guard lock(mutex_);
    auto it = last_.find(key);
    return it == last_.end() ? "" : it->second;
  }

  std::atomic<int> adds{0};
  std::atomic<int> initial_adds{0};
  std::atomic<int> updates{0};
  std::atomic<int> deletes{0};
  std::atomic<int> tombstones{0};
  std::atomic<int> cache_behind{0};
  std::atomic<int> not_cached{0};
  std::atomic<int> backwards{0};

  static unsigned long long number(const std::string& rv) {
    return rv.empty() ? 0 : std::stoull(rv);
  }

  void check_cached(const client::Pod& pod) {
    auto cached = cache_.get_by_key(meta_namespace_key(pod));
    if (!cached) {
      ++not_cached;
    } else if (number(cached->metadata.resource_version) < number(pod.metadata.resource_version)) {
      ++cache_behind;
    }
  }

  const Indexer<client::Pod>& cache_;
  mutable std::mutex mutex_;
  std::map<std::string, std::string> last_;
};

class Recorder {
  std::shared_ptr<RecorderState> state_;  // first: the references below point into it

 public:
  /// `cache` is the informer's: it must outlive the handler (the informer does). The Recorder
  /// itself may go first: the handler keeps what it writes to alive.
  explicit Recorder(const Indexer<client::Pod>& cache)
      : state_(std::make_shared<RecorderState>(cache)),
        adds(state_->adds),
        initial_adds(state_->initial_adds),
        updates(state_->updates),
        deletes(state_->deletes),
        tombstones(state_->tombstones),
        cache_behind(state_->cache_behind),
        not_cached(state_->not_cached),
        backwards(state_->backwards) {}

  ResourceEventHandlerFuncs<client::Pod> handler() { return state_->handler(); }

  /// The last notification for `key`: "add@RV", "update@RV", "delete" or "".
  std::string last(const std::string& key) const { return state_->last(key); }

  std::atomic<int>& adds;
  std::atomic<int>& initial_adds;
  std::atomic<int>& updates;
  std::atomic<int>& deletes;
  std::atomic<int>& tombstones;
  std::atomic<int>& cache_behind;  ///< notifications for a state older than the cache's
  /// adds/updates of an object no longer cached (legitimate only if it was deleted since)
  std::atomic<int>& not_cached;
  std::atomic<int>& backwards;  ///< updates whose new resourceVersion was older
};

}  // namespace rg::informer::e2e
