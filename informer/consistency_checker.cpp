// CacheConsistencyChecker (see consistency_checker.hpp).
#include "informer/consistency_checker.hpp"

#include <spdlog/spdlog.h>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json.hpp>

#include <algorithm>
#include <charconv>
#include <optional>
#include <stdexcept>

#include "client/transport/cancellation.hpp"

namespace rg::informer {

namespace {

namespace json = boost::json;

std::optional<std::uint64_t> as_number(const std::string& resource_version) {
  std::uint64_t number = 0;
  const char* end = resource_version.data() + resource_version.size();
  auto [ptr, ec] = std::from_chars(resource_version.data(), end, number);
  if (ec != std::errc() || ptr != end || resource_version.empty()) return std::nullopt;
  return number;
}

// The cache saw a change after the LIST was taken.
bool cache_is_newer(const std::string& cached, const std::string& listed) {
  const auto c = as_number(cached);
  const auto l = as_number(listed);
  return c && l && *c > *l;
}

std::string string_at(const json::object& object, std::string_view key) {
  const json::value* value = object.if_contains(key);
  return value && value->is_string() ? std::string(value->get_string()) : std::string();
}

}  // namespace

std::string_view to_string(CacheDifference::Kind kind) {
  switch (kind) {
    case CacheDifference::Kind::kMissing:
      return "missing";
    case CacheDifference::Kind::kStale:
      return "stale";
    case CacheDifference::Kind::kExtra:
      return "extra";
  }
  return "unknown";
}

std::vector<CacheDifference> compare_cache(const CacheState& cache, const CacheState& server) {
  using Kind = CacheDifference::Kind;
  std::vector<CacheDifference> differences;
  for (const auto& [key, listed] : server) {
    auto it = cache.find(key);
    if (it == cache.end()) {
      differences.push_back({Kind::kMissing, key, "", listed});
    } else if (it->second != listed && !cache_is_newer(it->second, listed)) {
      differences.push_back({Kind::kStale, key, it->second, listed});
    }
  }
  for (const auto& [key, cached] : cache) {
    if (!server.contains(key)) differences.push_back({Kind::kExtra, key, cached, ""});
  }
  return differences;
}

std::vector<CacheDifference> confirmed(const std::vector<CacheDifference>& first,
                                       const std::vector<CacheDifference>& second) {
  std::vector<CacheDifference> out;
  for (const auto& difference : second) {
    if (std::find(first.begin(), first.end(), difference) != first.end()) {
      out.push_back(difference);
    }
  }
  return out;
}

CacheConsistencyChecker::CacheConsistencyChecker(client::RestClient& client, ListWatchScope scope,
                                                 std::string name, Snapshot cache,
                                                 ConsistencyCheckOptions options,
                                                 std::shared_ptr<ReflectorObserver> observer)
    : client_(client),
      scope_(std::move(scope)),
      name_(std::move(name)),
      cache_(std::move(cache)),
      options_(options),
      observer_(observer ? std::move(observer) : std::make_shared<ReflectorObserver>()) {
  if (options_.period <= std::chrono::milliseconds::zero() ||
      options_.confirm_after <= std::chrono::milliseconds::zero() || options_.page_size <= 0) {
    throw std::invalid_argument("cache consistency check of " + name_ +
                                ": period, confirm_after and page_size must all be positive");
  }
}

boost::asio::awaitable<CacheState> CacheConsistencyChecker::list_server() {
  CacheState state;
  std::string continue_token;
  do {
    client::ListOptions options;
    options.label_selector = scope_.label_selector;
    options.field_selector = scope_.field_selector;
    options.limit = options_.page_size;
    options.continue_ = continue_token;
    const json::value page = co_await client_.list(scope_.resource, options);
    for (const json::value& item : page.at("items").as_array()) {
      const json::object& metadata = item.at("metadata").as_object();
      const std::string object_namespace = string_at(metadata, "namespace");
      std::string key = object_namespace.empty()
                            ? string_at(metadata, "name")
                            : object_namespace + "/" + string_at(metadata, "name");
      state.emplace(std::move(key), string_at(metadata, "resourceVersion"));
    }
    continue_token = string_at(page.at("metadata").as_object(), "continue");
  } while (!continue_token.empty());
  co_return state;
}

boost::asio::awaitable<void> CacheConsistencyChecker::sleep(std::chrono::milliseconds duration) {
  boost::asio::steady_timer timer(co_await boost::asio::this_coro::executor, duration);
  co_await timer.async_wait(boost::asio::use_awaitable);
}

boost::asio::awaitable<std::vector<CacheDifference>> CacheConsistencyChecker::check() {
  const CacheState first_server = co_await list_server();
  const std::optional<CacheState> first_cache = cache_();
  if (!first_cache) co_return std::vector<CacheDifference>{};
  const std::vector<CacheDifference> first = compare_cache(*first_cache, first_server);
  std::vector<CacheDifference> differences;
  std::size_t cached = first_cache->size();
  std::size_t listed = first_server.size();
  if (!first.empty()) {
    co_await sleep(options_.confirm_after);
    const CacheState second_server = co_await list_server();
    const std::optional<CacheState> second_cache = cache_();
    if (!second_cache) co_return std::vector<CacheDifference>{};
    differences = confirmed(first, compare_cache(*second_cache, second_server));
    cached = second_cache->size();
    listed = second_server.size();
  }
  report(differences, cached, listed);
  co_return differences;
}

void CacheConsistencyChecker::report(const std::vector<CacheDifference>& differences,
                                     std::size_t cached, std::size_t listed) const {
  observer_->on_consistency_check(differences.size());
  if (differences.empty()) return;
  constexpr std::size_t kShown = 10;
  std::string shown;
  for (std::size_t i = 0; i < differences.size() && i < kShown; ++i) {
    const CacheDifference& d = differences[i];
    if (!shown.empty()) shown += ", ";
    shown += std::string(to_string(d.kind)) + " " + d.key + " (cache " +
             (d.cached_resource_version.empty() ? "-" : d.cached_resource_version) + ", server " +
             (d.server_resource_version.empty() ? "-" : d.server_resource_version) + ")";
  }
  if (differences.size() > kShown) shown += ", ...";
  spdlog::error(
      "informer {}: the cache differs from the server in {} object(s) (cache {}, server {}): {}",
      name_, differences.size(), cached, listed, shown);
}

boost::asio::awaitable<void> CacheConsistencyChecker::run() {
  for (;;) {
    co_await sleep(options_.period);
    try {
      co_await check();
    } catch (...) {
      if (client::is_cancellation(std::current_exception())) throw;
      try {
        throw;
      } catch (const std::exception& e) {
        spdlog::warn("informer {}: cache consistency check failed, retrying in {} ms: {}", name_,
                     options_.period.count(), e.what());
      }
    }
  }
}

}  // namespace rg::informer
