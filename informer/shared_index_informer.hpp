// SharedIndexInformer<T>: a Reflector filling a DeltaFIFO, one consumer popping it -- updating
// the Indexer first, then notifying every handler through the SharedProcessor -- and the resync
// ticker. Handlers each have their own buffer (ProcessorListener), so a slow one stalls neither
// the others nor the reflector.
//
//   SharedIndexInformer<Pod> pods(client, {.scope = {resources::pods()}, .name = "pods"});
//   pods.add_event_handler("enqueue", {.on_add = ..., .on_update = ..., .on_delete = ...},
//                          {.resync_period = 10min});
//   co_spawn(io, pods.run(), bind_cancellation_slot(stop.slot(), detached));
//   ... pods.has_synced(), pods.lister().namespace_("shop").get("web")
//
// SharedIndexInformer<T, Wire> decodes Wire (Unstructured) and caches T made from it by
// Options::project (projection.hpp); everything after the Reflector only ever sees T.
#pragma once

#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "informer/delta_fifo.hpp"
#include "informer/detail/handle_deltas.hpp"
#include "informer/detail/shared_processor.hpp"
#include "informer/indexer.hpp"
#include "informer/lister.hpp"
#include "informer/reflector.hpp"

namespace rg::informer {

template <KubeObject T, KubeObject Wire = T>
class SharedIndexInformer {
 public:
  using ObjectPtr = std::shared_ptr<const T>;
  using Clock = std::chrono::steady_clock;

  struct Options {
    ListWatchScope scope;
    std::string name;  ///< metrics/log label, e.g. "pods"
    reflector::Config reflector;
    std::size_t fifo_capacity = 100'000;  ///< queued deltas before the reflector waits
    Indexers<T> indexers = default_indexers<T>();
    TransformFunc<T> transform;  ///< runs before storing (e.g. to drop fields nobody reads)
    /// The resync period of handlers registered without one (client-go's
    /// defaultEventHandlerResyncPeriod); zero: none.
    Clock::duration default_resync_period{};
    /// Makes each cached T from the decoded Wire (required when they differ; see projection.hpp).
    ProjectFunc<T, Wire> project = {};
  };

  SharedIndexInformer(client::RestClient& client, Options options,
                      std::shared_ptr<ReflectorObserver> observer = nullptr)
      : name_(options.name),
        default_resync_period_(options.default_resync_period),
        indexer_(std::move(options.indexers), std::move(options.transform)),
        fifo_(typename DeltaFIFO<T>::Options{
            .capacity = options.fifo_capacity,
            .known_objects = &indexer_,
            .size_hint = [this](std::size_t listed_keys) { indexer_.reserve(listed_keys); }}),
        processor_([this] { return fifo_.has_synced(); }),
        deltas_(indexer_, processor_),
        reflector_(client, fifo_,
                   typename Reflector<T, Wire>::Options{std::move(options.scope), options.reflector,
                                                        options.name, std::move(options.project)},
                   std::move(observer)) {}

  SharedIndexInformer(const SharedIndexInformer&) = delete;
  SharedIndexInformer& operator=(const SharedIndexInformer&) = delete;

  /// Registers a handler (before or after run() started: a late one first gets the cache as
  /// adds). See HandlerOptions for its resync period and an optional bound on its buffer.
  std::shared_ptr<ProcessorListener<T>> add_event_handler(std::string name,
                                                          ResourceEventHandlerFuncs<T> handler,
                                                          HandlerOptions options = {}) {
    return deltas_.add_event_handler(std::move(name), std::move(handler),
                                     options.resync_period.value_or(default_resync_period_),
                                     options.max_pending);
  }
  /// The same with only a resync period (zero: never).
  std::shared_ptr<ProcessorListener<T>> add_event_handler(std::string name,
                                                          ResourceEventHandlerFuncs<T> handler,
                                                          Clock::duration resync_period) {
    return add_event_handler(std::move(name), std::move(handler),
                             HandlerOptions{.resync_period = resync_period});
  }

  /// Runs until cancelled: then stops the reflector, closes the FIFO (what is queued is still
  /// handled), stops every handler's delivery and returns once all of them have ended.
  boost::asio::awaitable<void> run() {
    using namespace boost::asio::experimental::awaitable_operators;
    auto producing = produce();
    auto consuming = consume();
    auto delivering = deliver();
    co_await (std::move(producing) && std::move(consuming) && std::move(delivering));
  }

  /// True once the first full list has been popped into the cache.
  bool has_synced() const { return fifo_.has_synced(); }
  const std::string& name() const { return name_; }
  ReflectorStatus status() const { return reflector_.status(); }
  std::string last_sync_resource_version() const { return reflector_.last_sync_resource_version(); }
  /// Objects left out of the cache because their projection failed (projection.hpp).
  std::uint64_t projection_failures() const { return reflector_.projection_failures(); }

  /// Keys queued in the DeltaFIFO, waiting to be popped (informer_delta_fifo_depth).
  std::size_t fifo_depth() const { return fifo_.size(); }
  /// Every registered handler's backlog and counts (the informer_handler_* metrics).
  std::vector<HandlerStats> handler_stats() const {
    std::vector<HandlerStats> stats;
    for (const auto& listener : processor_.listeners()) {
      stats.push_back({listener->name(), listener->pending(), listener->delivered(),
                       listener->handler_failures()});
    }
    return stats;
  }

  const Indexer<T>& indexer() const { return indexer_; }
  Indexer<T>& indexer() { return indexer_; }
  Lister<T> lister() const { return Lister<T>(indexer_); }

 private:
  // The reflector and the resync ticker, until cancelled; then the FIFO is closed so the
  // consumer drains and ends, and the processor is stopped.
  boost::asio::awaitable<void> produce() {
    using namespace boost::asio::experimental::awaitable_operators;
    try {
      auto reflecting = reflector_.run();
      auto resyncing = resync();
      co_await (std::move(reflecting) || std::move(resyncing));
    } catch (...) {
      fifo_.close();
      processor_.stop();
      throw;
    }
    fifo_.close();
    processor_.stop();
  }

  // Pops until the FIFO is closed and drained; deaf to cancellation, which produce() turns into
  // closing the FIFO, so nothing popped is half-handled. Before each pop it waits until every
  // bounded handler has room (unbounded ones never make it wait).
  boost::asio::awaitable<void> consume() {
    co_await boost::asio::this_coro::reset_cancellation_state(boost::asio::disable_cancellation());
    auto process = [this](Deltas<T>&& deltas, bool is_in_initial_list) {
      deltas_.handle_deltas(std::move(deltas), is_in_initial_list);
    };
    do {
      if (processor_.has_bounded_listeners()) co_await processor_.wait_for_room();
    } while (co_await fifo_.pop(process));
  }

  // Every handler's delivery loop, until produce() stops the processor and they have all ended.
  boost::asio::awaitable<void> deliver() {
    co_await boost::asio::this_coro::reset_cancellation_state(boost::asio::disable_cancellation());
    co_await processor_.run();
  }

  // Queues Sync deltas whenever a handler's resync period is due: checks every
  // resync_check_period() (the shortest period of the handlers) since the last check. Adding or
  // removing a handler wakes it to recompute, so a handler added after start -- also when no
  // handler wanted resyncs before, or with a shorter period than the others -- gets its own.
  boost::asio::awaitable<void> resync() {
    using namespace boost::asio::experimental::awaitable_operators;
    boost::asio::steady_timer timer(co_await boost::asio::this_coro::executor);
    auto last_check = Clock::now();
    for (;;) {
      const auto schedule = processor_.resync_schedule();
      if (!schedule.period) {
        co_await processor_.resync_schedule_changed(schedule.version);
        last_check = Clock::now();  // the first resync is one period after a handler asked
        continue;
      }
      timer.expires_at(last_check + *schedule.period);
      auto ticking = timer.async_wait(boost::asio::use_awaitable);
      auto changing = processor_.resync_schedule_changed(schedule.version);
      const auto woken = co_await (std::move(ticking) || std::move(changing));
      if (woken.index() == 1) continue;
      last_check = Clock::now();
      if (processor_.should_resync() && !co_await fifo_.resync()) co_return;
    }
  }

  std::string name_;
  Clock::duration default_resync_period_;
  Indexer<T> indexer_;
  DeltaFIFO<T> fifo_;
  detail::SharedProcessor<T> processor_;
  detail::DeltaHandler<T> deltas_;
  Reflector<T, Wire> reflector_;
};

}  // namespace rg::informer
