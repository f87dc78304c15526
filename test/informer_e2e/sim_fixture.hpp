// The informer end-to-end fixture: kube-sim in process (store, registry, API handler, fault
// injection, HTTP server on its own thread) with a test-only interception layer in front of the
// API handler -- answer 401/403 for a resource, refuse watch-list as a server without WatchList
// does, swallow the initial-events-end bookmark as some proxies do -- plus a RestClient on an
// io_context the test drives, pod writers that go straight to the server's store, and the
// check every fault sequence ends with: the informer's cache equals a fresh LIST.
#pragma once

#include <doctest/doctest.h>
#include <prometheus/registry.h>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json/object.hpp>

#include <atomic>
#include <chrono>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "client/model/pod.hpp"
#include "client/rest/resource.hpp"
#include "client/rest/rest_client.hpp"
#include "informer/indexer.hpp"
#include "informer/reflector_observer.hpp"
#include "informer/reflector_state.hpp"
#include "informer/shared_index_informer.hpp"
#include "sim/faults.hpp"
#include "sim/object_store.hpp"

namespace rg::informer::e2e {

using Clock = std::chrono::steady_clock;
/// key ("namespace/name") -> resourceVersion.
using StateMap = std::map<std::string, std::string>;

/// What the interception layer does to requests (all off by default; change at any time).
struct Interception {
  int deny_code = 0;                     ///< 401 or 403 for every request on `deny_resource`
  std::string deny_resource;             ///< a plural, e.g. "pods"
  bool refuse_watch_list = false;        ///< 422 to sendInitialEvents=true, as without WatchList
  bool drop_initial_events_end = false;  ///< swallow the k8s.io/initial-events-end bookmark
};

/// How often kube-sim sends BOOKMARK events on watches that ask for them.
inline constexpr std::chrono::milliseconds kBookmarkInterval{100};

/// kube-sim, plain HTTP on an ephemeral port, one io thread, with the interception layer.
class InterceptingSim {
 public:
  explicit InterceptingSim(sim::StoreOptions store = {});
  ~InterceptingSim();
  InterceptingSim(const InterceptingSim&) = delete;
  InterceptingSim& operator=(const InterceptingSim&) = delete;

  std::string address() const;
  sim::Store& store();
  sim::Faults& faults();
  void set_interception(Interception interception);
  Interception interception() const;
  /// Requests that carried sendInitialEvents=true so far.
  int watch_list_requests() const { return watch_list_requests_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  mutable std::mutex mutex_;
  Interception interception_;
  std::atomic<int> watch_list_requests_{0};
};

/// Counts what a Reflector reports (single-threaded use: the test drives the io_context).
class CountingObserver final : public ReflectorObserver {
 public:
  void on_list() override { ++lists; }
  void on_relist(std::string_view reason) override { ++relists[std::string(reason)]; }
  void on_watch() override { ++watches; }
  void on_event(client::WatchEventType type) override {
    ++(type == client::WatchEventType::kBookmark ? bookmarks : events);
  }
  void on_items(std::size_t count) override { items += count; }
  void on_list_synced(std::size_t /*count*/) override { ++list_syncs; }
  void on_health(reflector::Health health) override { last_health = health; }
  void on_consistency_check(std::size_t count) override {
    ++consistency_checks;
    inconsistencies += count;
  }

  std::atomic<int> lists{0};
  std::atomic<int> watches{0};
  std::atomic<int> events{0};  ///< ADDED, MODIFIED, DELETED
  std::atomic<int> bookmarks{0};
  std::atomic<std::size_t> items{0};
  std::atomic<int> list_syncs{0};
  std::atomic<int> consistency_checks{0};
  std::atomic<std::size_t> inconsistencies{0};
  std::map<std::string, int> relists;
  reflector::Health last_health = reflector::Health::kHealthy;
};

/// Fast retries and short watches, so fault sequences recover in milliseconds.
reflector::Config fast_reflector();

class Fixture {
 public:
  /// `io_threads` = 0: the test thread drives the client's io_context inside run_until();
  /// otherwise that many background threads run it and run_until() only watches the condition.
  explicit Fixture(int io_threads = 0, sim::StoreOptions store = {});
  ~Fixture();

  /// Runs (or, with io threads, waits) until `done()` holds: true, or false at `limit`.
  bool run_until(const std::function<bool()>& done,
                 std::chrono::milliseconds limit = std::chrono::seconds(60));

  /// Runs a coroutine on the client's io_context to completion (60 s at most).
  template <class T>
  T await(boost::asio::awaitable<T> coro) {
    std::optional<T> result;
    std::exception_ptr error;
    std::atomic<bool> done{false};
    boost::asio::co_spawn(io, std::move(coro), [&](std::exception_ptr e, T value) {
      error = e;
      if (!e) result = std::move(value);
      done = true;
    });
    if (!run_until([&] { return done.load(); })) throw std::runtime_error("await: timed out");
    if (error) std::rethrow_exception(error);
    return std::move(*result);
  }

  void await(boost::asio::awaitable<void> coro) {
    auto wrapped = [](boost::asio::awaitable<void> inner) -> boost::asio::awaitable<bool> {
      co_await std::move(inner);
      co_return true;
    };
    await(wrapped(std::move(coro)));
  }

  /// Spawns `run` (an informer's or a factory's) with a stop signal; stop() cancels it and
  /// waits until it has ended.
  void start(boost::asio::awaitable<void> run);
  /// True once the spawned run has ended; false if it did not within the limit.
  bool stop();
  bool running() const { return started_ && !ended_; }

  // Writes, straight into the server's store (watchers see them as with any API write).
  std::string create_pod(const std::string& namespace_, const std::string& name,
                         const std::map<std::string, std::string>& labels = {});
  /// Bumps an annotation (a MODIFIED event); returns the new resourceVersion.
  std::string touch_pod(const std::string& namespace_, const std::string& name);
  std::string set_pod_label(const std::string& namespace_, const std::string& name,
                            const std::string& key, const std::string& value);
  void delete_pod(const std::string& namespace_, const std::string& name);
  /// A change of another resource type: moves the server's resourceVersion, no pod event.
  std::string create_config_map(const std::string& name);
  /// Creates pod-0..pod-(count-1) in `namespace_`.
  void create_pods(const std::string& namespace_, int count,
                   const std::map<std::string, std::string>& labels = {});

  /// A fresh LIST through the API (all pages), as key -> resourceVersion.
  StateMap server_state(const client::ResourceRef& resource,
                        const std::string& label_selector = "");

  /// Waits until the cache equals a fresh LIST (taken now: call it once writes have stopped);
  /// fails the test with the difference otherwise.
  void require_cache_matches_server(const Indexer<client::Pod>& cache,
                                    const client::ResourceRef& resource,
                                    const std::string& label_selector = "");

  InterceptingSim sim;
  boost::asio::io_context io;
  client::RestClient client;

 private:
  boost::json::object pod_json(const std::string& namespace_, const std::string& name,
                               const std::map<std::string, std::string>& labels) const;
  const sim::ResourceType& pods_type() const;

  boost::asio::cancellation_signal stop_;
  std::atomic<bool> started_{false};
  std::atomic<bool> ended_{false};
  std::vector<std::thread> threads_;
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work_;
};

/// A pod informer over all namespaces with fast_reflector() timings.
SharedIndexInformer<client::Pod>::Options pod_informer_options(std::string label_selector = "",
                                                               bool watch_list = false);

/// A SharedIndexInformer<Pod> run by a Fixture, with a CountingObserver; stops it on
/// destruction (declare it after the Fixture).
class RunningInformer {
 public:
  RunningInformer(Fixture& fixture, SharedIndexInformer<client::Pod>::Options options)
      : fixture_(fixture),
        observer(std::make_shared<CountingObserver>()),
        informer(fixture.client, std::move(options), observer) {}
  ~RunningInformer() {
    if (fixture_.running()) CHECK_MESSAGE(fixture_.stop(), "the informer did not stop promptly");
  }
  void start() { fixture_.start(informer.run()); }

  /// Registers a handler whose deliveries settle() waits for.
  std::shared_ptr<ProcessorListener<client::Pod>> add_event_handler(
      std::string name, ResourceEventHandlerFuncs<client::Pod> handler) {
    listeners_.push_back(informer.add_event_handler(std::move(name), std::move(handler)));
    return listeners_.back();
  }

  /// The cache equals a fresh LIST (see Fixture::require_cache_matches_server), and every
  /// handler has been told.
  void require_consistent(const std::string& label_selector = "") {
    fixture_.require_cache_matches_server(cache(), client::resources::pods(), label_selector);
    REQUIRE(fixture_.run_until([this] {
      for (const auto& listener : listeners_) {
        if (listener->pending() > 0) return false;
      }
      return true;
    }));
  }
  /// Waits until the informer and every handler added through add_event_handler have synced.
  bool synced() {
    return fixture_.run_until([this] {
      if (!informer.has_synced()) return false;
      for (const auto& listener : listeners_) {
        if (!listener->has_synced()) return false;
      }
      return true;
    });
  }
  const Indexer<client::Pod>& cache() const { return informer.indexer(); }

 private:
  Fixture& fixture_;
  std::vector<std::shared_ptr<ProcessorListener<client::Pod>>> listeners_;

 public:
  std::shared_ptr<CountingObserver> observer;
  SharedIndexInformer<client::Pod> informer;
};

/// The value of counter `family` with these labels (among others) in `registry`; -1 if none.
double counter_value(prometheus::Registry& registry, const std::string& family,
                     const std::map<std::string, std::string>& labels);

/// key -> resourceVersion of what a cache holds.
StateMap cache_state(const Indexer<client::Pod>& cache);
/// A readable account of how `cache` differs from `server` ("" when equal).
std::string describe_difference(const StateMap& cache, const StateMap& server);

}  // namespace rg::informer::e2e
