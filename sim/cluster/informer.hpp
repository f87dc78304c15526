// Informer: the simulated cluster's cache of one resource type, fed by a Store watch the way a
// client-go informer is fed by the API -- initial state, then events, a re-watch from the last
// resourceVersion when the watch closes and a relist when that is too old. Views are parsed once
// per version and shared; handlers (which only queue work) see every change; secondary indexes
// answer "pods on node X" or "pods owned by Y". Controllers' own writes are applied at once
// (observe) so a sync never acts twice on a stale cache; the watch event for the same version
// is then skipped. Not thread-safe: lives on the cluster's strand.
#pragma once

#include <spdlog/spdlog.h>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/object_store.hpp"

namespace rg::sim::cluster {

template <class View>
class Informer {
 public:
  using ViewPtr = std::shared_ptr<const View>;
  /// `before` is null for an added object, `after` null for a deleted one.
  using Handler = std::function<void(const View* before, const View* after)>;
  /// The index value of a view ("" = not indexed).
  using IndexFunc = std::function<std::string(const View&)>;

  Informer(Store& store, const ResourceType& type) : store_(store), type_(type) {}
  ~Informer() {
    if (watcher_) store_.unwatch(type_, watcher_);
  }
  Informer(const Informer&) = delete;
  Informer& operator=(const Informer&) = delete;

  void add_handler(Handler handler) { handlers_.push_back(std::move(handler)); }
  /// Adds a secondary index; returns its id for indexed(). Call before start().
  std::size_t add_index(IndexFunc func) {
    index_funcs_.push_back(std::move(func));
    indexes_.emplace_back();
    return index_funcs_.size() - 1;
  }

  /// Lists and subscribes at once (the cache is synced when this returns); handlers see every
  /// object as added.
  void start() { relist(); }

  /// Delivers watch events until cancelled.
  boost::asio::awaitable<void> run() {
    for (;;) {
      auto events = co_await watcher_->next();
      if (events.empty()) {
        rewatch();
        continue;
      }
      for (auto& event : events) {
        last_resource_version_ = event.object->resource_version;
        apply(event.type, std::move(event.object), false);
      }
    }
  }

  /// Our own write (create/update result): applied now, its watch event later skipped.
  void observe(ObjectPtr written) { apply(EventType::kModified, std::move(written), true); }
  /// Our own delete (Store::remove's result, carrying the deletion's resourceVersion).
  void observe_deleted(ObjectPtr last) { apply(EventType::kDeleted, std::move(last), true); }

  ViewPtr get(std::string_view key) const {
    auto it = items_.find(key);
    return it == items_.end() ? nullptr : it->second;
  }
  ViewPtr get(std::string_view namespace_, std::string_view name) const {
    return get(object_key(type_.namespaced ? namespace_ : "", name));
  }
  const std::map<std::string, ViewPtr, std::less<>>& items() const { return items_; }
  /// Keys whose index `index` has `value`, in key order.
  const std::set<std::string>& indexed(std::size_t index, const std::string& value) const {
    static const std::set<std::string> kNone;
    auto it = indexes_[index].find(value);
    return it == indexes_[index].end() ? kNone : it->second;
  }

 private:
  void apply(EventType type, ObjectPtr object, bool own_write) {
    const std::string key = object->key();
    const auto version = object->resource_version;
    if (own_write) {
      written_[key] = version;
    } else if (auto written = written_.find(key); written != written_.end()) {
      const bool seen = version <= written->second;
      if (version >= written->second) written_.erase(written);
      if (seen) return;
    }
    auto it = items_.find(key);
    ViewPtr before = it == items_.end() ? nullptr : it->second;
    if (type == EventType::kDeleted) {
      if (!before) return;
      unindex(*before, key);
      items_.erase(it);
      notify(before.get(), nullptr);
      return;
    }
    if (before && before->object->resource_version >= version) return;
    auto after = std::make_shared<const View>(View::from(std::move(object)));
    if (before) unindex(*before, key);
    index(*after, key);
    items_.insert_or_assign(key, after);
    notify(before.get(), after.get());
  }

  void notify(const View* before, const View* after) {
    for (const auto& handler : handlers_) handler(before, after);
  }

  void index(const View& view, const std::string& key) {
    for (std::size_t i = 0; i < index_funcs_.size(); ++i)
      if (auto value = index_funcs_[i](view); !value.empty()) indexes_[i][value].insert(key);
  }
  void unindex(const View& view, const std::string& key) {
    for (std::size_t i = 0; i < index_funcs_.size(); ++i) {
      auto value = index_funcs_[i](view);
      auto it = indexes_[i].find(value);
      if (it == indexes_[i].end()) continue;
      it->second.erase(key);
      if (it->second.empty()) indexes_[i].erase(it);
    }
  }

  // The watch closed (fault injection, or it fell behind): resume where it stopped.
  void rewatch() {
    store_.unwatch(type_, watcher_);
    try {
      watcher_ = store_.watch(type_, "", last_resource_version_).watcher;
    } catch (const std::exception& error) {
      spdlog::debug("sim cluster: {} watch from {} failed ({}), relisting", type_.resource,
                    last_resource_version_, error.what());
      relist();
    }
  }

  // A fresh watch starting with the whole state; the cache becomes exactly that state.
  void relist() {
    if (watcher_) store_.unwatch(type_, watcher_);
    auto start = store_.watch(type_, "", std::nullopt);
    watcher_ = std::move(start.watcher);
    last_resource_version_ = start.initial->resource_version;
    written_.clear();
    std::set<std::string, std::less<>> present;
    for (const auto& object : start.initial->items) {
      present.insert(object->key());
      apply(EventType::kModified, object, false);
    }
    std::vector<ObjectPtr> gone;
    for (const auto& [key, view] : items_)
      if (!present.contains(key)) gone.push_back(view->object);
    for (auto& object : gone) apply(EventType::kDeleted, std::move(object), false);
  }

  Store& store_;
  const ResourceType& type_;
  std::shared_ptr<Watcher> watcher_;
  std::uint64_t last_resource_version_ = 0;
  std::map<std::string, ViewPtr, std::less<>> items_;
  std::unordered_map<std::string, std::uint64_t> written_;  // key -> version of our own write
  std::vector<Handler> handlers_;
  std::vector<IndexFunc> index_funcs_;
  std::vector<std::unordered_map<std::string, std::set<std::string>>> indexes_;
};

}  // namespace rg::sim::cluster
