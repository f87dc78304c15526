// CacheConsistencyChecker: the optional check that an informer's cache still mirrors the
// server. Every `period` it LISTs the informer's scope and compares keys and resourceVersions
// with the cache. A cache legitimately lags a little behind, so a difference counts only when
// it is confirmed: `confirm_after` later a second LIST and cache snapshot still differ in
// exactly the same way (neither side changed meanwhile, yet the informer did not catch up).
// Confirmed differences are logged (the first few keys) and reported to the ReflectorObserver
// (informer_cache_inconsistencies_total{resource} with InformerMetrics).
//
//   SharedInformerFactoryOptions options;
//   options.consistency_check = ConsistencyCheckOptions{.period = std::chrono::minutes(10)};
#pragma once

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "client/rest/rest_client.hpp"
#include "informer/indexer.hpp"
#include "informer/list_watch_scope.hpp"
#include "informer/object_key.hpp"
#include "informer/reflector_observer.hpp"

namespace rg::informer {

struct ConsistencyCheckOptions {
  std::chrono::milliseconds period{std::chrono::minutes(10)};         ///< between checks
  std::chrono::milliseconds confirm_after{std::chrono::seconds(10)};  ///< before re-checking
  std::int64_t page_size = 500;                                       ///< LIST page size
};

/// key ("namespace/name") -> resourceVersion.
using CacheState = std::map<std::string, std::string>;

struct CacheDifference {
  enum class Kind {
    kMissing,  ///< on the server, not in the cache
    kStale,    ///< in both, the cache holds an older resourceVersion
    kExtra,    ///< in the cache, gone from the server
  };
  Kind kind;
  std::string key;
  std::string cached_resource_version;  ///< "" when missing
  std::string server_resource_version;  ///< "" when extra
  friend bool operator==(const CacheDifference&, const CacheDifference&) = default;
};
std::string_view to_string(CacheDifference::Kind kind);

/// How `cache` differs from `server`. A cached resourceVersion newer than the server's (both
/// numbers) is not a difference: the cache saw a change after the LIST was taken.
std::vector<CacheDifference> compare_cache(const CacheState& cache, const CacheState& server);

/// The differences of `first` that `second` shows again unchanged.
std::vector<CacheDifference> confirmed(const std::vector<CacheDifference>& first,
                                       const std::vector<CacheDifference>& second);

template <KubeObject T>
CacheState cache_state(const Indexer<T>& indexer) {
  CacheState state;
  for (const auto& object : indexer.list()) {
    state.emplace(meta_namespace_key(*object), meta::resource_version(*object));
  }
  return state;
}

class CacheConsistencyChecker {
 public:
  /// The cache's state, or nullopt while it is not worth checking (not synced yet, or the
  /// reflector is failing -- a problem reported already): the check is then skipped.
  using Snapshot = std::function<std::optional<CacheState>()>;

  /// `cache` snapshots the informer's cache; `name` labels logs and metrics ("pods").
  /// Throws std::invalid_argument for a non-positive period, confirm_after or page size.
  CacheConsistencyChecker(client::RestClient& client, ListWatchScope scope, std::string name,
                          Snapshot cache, ConsistencyCheckOptions options,
                          std::shared_ptr<ReflectorObserver> observer);

  /// One check (two LISTs, confirm_after apart); returns the confirmed differences, after
  /// logging them and telling the observer (nothing when skipped: see Snapshot). Throws what
  /// the LISTs throw.
  boost::asio::awaitable<std::vector<CacheDifference>> check();

  /// check() every period until cancelled. A failed LIST is logged; the next period retries.
  boost::asio::awaitable<void> run();

 private:
  boost::asio::awaitable<CacheState> list_server();
  boost::asio::awaitable<void> sleep(std::chrono::milliseconds duration);
  void report(const std::vector<CacheDifference>& differences, std::size_t cached,
              std::size_t listed) const;

  client::RestClient& client_;
  ListWatchScope scope_;
  std::string name_;
  Snapshot cache_;
  ConsistencyCheckOptions options_;
  std::shared_ptr<ReflectorObserver> observer_;
};

}  // namespace rg::informer
