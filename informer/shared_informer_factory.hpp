// SharedInformerFactory: one SharedIndexInformer per (type, resource, namespace, selectors),
// however many times it is asked for; start() runs the ones not yet running, and
// wait_for_cache_sync() reports per informer whether it synced -- or why not ("forbidden"
// rather than a bare timeout).
//
//   SharedInformerFactory factory(client, {.namespace_ = "shop"});
//   auto& pods = factory.informer_for<Pod>(resources::pods());
//   factory.start(io.get_executor());
//   auto results = co_await factory.wait_for_cache_sync(30s);
//   ...
//   co_await factory.shutdown();
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/cancellation_signal.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <typeindex>
#include <vector>

#include "informer/consistency_checker.hpp"
#include "informer/shared_index_informer.hpp"

namespace rg::informer {

/// Selectors applied to every informer of a factory (client-go's WithTweakListOptions).
struct ListTweaks {
  std::string label_selector;
  std::string field_selector;
};

struct SharedInformerFactoryOptions {
  std::string namespace_;  ///< empty: all namespaces (cluster-scoped resources ignore it)
  ListTweaks tweaks{};
  reflector::Config reflector{};
  std::size_t fifo_capacity = 100'000;
  /// The resync period of every handler registered without one (client-go's
  /// NewSharedInformerFactory defaultResync); a handler may still ask for its own
  /// (HandlerOptions::resync_period), shorter or longer. Zero: none.
  std::chrono::steady_clock::duration default_resync_period{};
  /// Makes each reflector's observer (metrics), given the informer's name; may be empty.
  std::function<std::shared_ptr<ReflectorObserver>(const std::string& name)> observer{};
  /// When set, every informer's cache is checked against a fresh LIST periodically (see
  /// consistency_checker.hpp); the observer hears of each check.
  std::optional<ConsistencyCheckOptions> consistency_check{};
};

/// Why an informer is or is not synced, as wait_for_cache_sync reports it.
struct CacheSyncResult {
  std::string name;
  bool synced = false;
  reflector::Health health = reflector::Health::kHealthy;
  std::string message;  ///< the reflector's last problem, e.g. the 403's text
};

class SharedInformerFactory {
 public:
  SharedInformerFactory(client::RestClient& client, SharedInformerFactoryOptions options);
  ~SharedInformerFactory();
  SharedInformerFactory(const SharedInformerFactory&) = delete;
  SharedInformerFactory& operator=(const SharedInformerFactory&) = delete;

  /// The shared informer for T on `resource` (in the factory's namespace), made on first use.
  /// `name` labels its metrics and logs (default: the resource's plural). `per_informer` may
  /// narrow the selectors further and add indexers or a transform; it applies on creation only.
  /// With Wire other than T, objects are decoded as Wire and projected into T by the
  /// per_informer's `project` (projection.hpp); the informer is keyed by both types.
  template <KubeObject T, KubeObject Wire = T>
  SharedIndexInformer<T, Wire>& informer_for(
      client::ResourceRef resource, std::string name = {},
      const std::function<void(typename SharedIndexInformer<T, Wire>::Options&)>& per_informer =
          {}) {
    if (resource.namespaced && resource.namespace_.empty())
      resource.namespace_ = options_.namespace_;
    if (name.empty()) name = resource.resource;
    typename SharedIndexInformer<T, Wire>::Options informer_options{
        .scope = {resource, options_.tweaks.label_selector, options_.tweaks.field_selector},
        .name = name,
        .reflector = options_.reflector,
        .fifo_capacity = options_.fifo_capacity,
        .indexers = default_indexers<T>(),
        .transform = {},
        .default_resync_period = options_.default_resync_period};
    if (per_informer) per_informer(informer_options);
    const std::string key = std::string(typeid(SharedIndexInformer<T, Wire>).name()) + "|" +
                            resource.path() + "|" + informer_options.scope.label_selector + "|" +
                            informer_options.scope.field_selector;
    std::lock_guard lock(mutex_);
    auto& slot = informers_[key];
    if (!slot) {
      auto observer = options_.observer ? options_.observer(name) : nullptr;
      slot = std::make_unique<Holder<T, Wire>>(client_, std::move(informer_options),
                                               std::move(observer), options_.consistency_check);
    }
    return static_cast<Holder<T, Wire>&>(*slot).informer;
  }

  /// Runs every informer not yet running, on `executor`. Call again after asking for more.
  void start(const boost::asio::any_io_executor& executor);

  /// Waits until every started informer has synced, or `timeout`. Each result says whether it
  /// synced and, if not, the reflector's health and last problem (forbidden, unauthorized...).
  boost::asio::awaitable<std::vector<CacheSyncResult>> wait_for_cache_sync(
      std::chrono::milliseconds timeout) const;

  /// A snapshot of every informer's sync state (for /readyz).
  std::vector<CacheSyncResult> sync_state() const;

  /// Stops every informer and waits until all have ended.
  boost::asio::awaitable<void> shutdown();

 private:
  struct Base {
    virtual ~Base() = default;
    virtual boost::asio::awaitable<void> run() = 0;
    virtual CacheSyncResult state() const = 0;
  };
  template <KubeObject T, KubeObject Wire>
  struct Holder final : Base {
    Holder(client::RestClient& client, typename SharedIndexInformer<T, Wire>::Options options,
           std::shared_ptr<ReflectorObserver> observer,
           const std::optional<ConsistencyCheckOptions>& consistency_check)
        : informer(client, options, observer) {
      if (consistency_check) {
        auto snapshot = [this]() -> std::optional<CacheState> {
          if (!informer.has_synced() || informer.status().health != reflector::Health::kHealthy) {
            return std::nullopt;
          }
          return cache_state(informer.indexer());
        };
        checker.emplace(client, std::move(options.scope), std::move(options.name),
                        std::move(snapshot), *consistency_check, std::move(observer));
      }
    }
    boost::asio::awaitable<void> run() override { return checker ? run_checked() : informer.run(); }
    // The informer and its consistency checker, until cancelled.
    boost::asio::awaitable<void> run_checked() {
      using namespace boost::asio::experimental::awaitable_operators;
      auto informing = informer.run();
      auto checking = checker->run();
      co_await (std::move(informing) || std::move(checking));
    }
    CacheSyncResult state() const override {
      const ReflectorStatus status = informer.status();
      return {informer.name(), informer.has_synced(), status.health, status.message};
    }
    SharedIndexInformer<T, Wire> informer;
    std::optional<CacheConsistencyChecker> checker;
  };
  struct Running;

  client::RestClient& client_;
  SharedInformerFactoryOptions options_;
  mutable std::mutex mutex_;
  std::map<std::string, std::unique_ptr<Base>> informers_;
  std::shared_ptr<Running> running_;
};

}  // namespace rg::informer
