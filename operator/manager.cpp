// The running operator (see manager.hpp).
#include "operator/manager.hpp"

#include <unistd.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/deferred.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/experimental/parallel_group.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <atomic>
#include <fstream>
#include <random>

#include "client/leaderelection/lease_lock.hpp"
#include "client/model/deployment.hpp"
#include "client/model/horizontal_pod_autoscaler.hpp"
#include "client/model/lease.hpp"
#include "client/model/node.hpp"
#include "client/model/pod.hpp"
#include "client/record/event_broadcaster.hpp"
#include "client/record/rest_event_sink.hpp"
#include "client/rest/api_error.hpp"
#include "client/rest/rest_client.hpp"
#include "client/transport/cancellation.hpp"
#include "client/version.hpp"
#include "informer/informer_metrics.hpp"
#include "informer/shared_informer_factory.hpp"
#include "operator/annotations.hpp"
#include "operator/api_adapters.hpp"
#include "operator/cache_indexes.hpp"
#include "operator/event_handlers.hpp"
#include "operator/event_metrics.hpp"
#include "operator/hpa_lookup.hpp"
#include "operator/http_server.hpp"
#include "operator/logging.hpp"
#include "operator/metrics_text.hpp"
#include "operator/node_lease_monitor.hpp"
#include "operator/operator_metrics.hpp"
#include "operator/permissions.hpp"
#include "operator/readiness.hpp"
#include "operator/reconciler.hpp"
#include "operator/secure_metrics.hpp"
#include "operator/suspect_node_tainter.hpp"
#include "operator/suspect_pod_marker.hpp"
#include "operator/write_fence.hpp"
#include "workqueue/metrics.hpp"
#include "workqueue/rate_limiting_queue.hpp"

namespace rg::op {

namespace asio = boost::asio;
using namespace asio::experimental::awaitable_operators;
using client::Deployment;
using client::HorizontalPodAutoscaler;
using client::Lease;
using client::Node;
using client::Pod;
using Queue = workqueue::RateLimitingQueue<std::string>;

namespace {

std::string pod_namespace() {
  std::ifstream in("/var/run/secrets/kubernetes.io/serviceaccount/namespace");
  std::string ns;
  std::getline(in, ns);
  return ns;
}

std::string new_identity() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  std::random_device random;
  return std::string(host) + "_" + std::to_string(random() % 1'000'000'000);
}

asio::awaitable<void> sleep_forever() {
  asio::steady_timer never(co_await asio::this_coro::executor,
                           asio::steady_timer::time_point::max());
  co_await never.async_wait(asio::use_awaitable);
}

}  // namespace

struct Manager::Impl {
  Impl(Options opts, client::RestConfig config, std::shared_ptr<client::TransportTracer> tracer)
      : options(std::move(opts)),
        metrics(registry),
        informer_metrics(registry),
        queue_metrics(std::make_shared<workqueue::MetricsProvider>()),
        node_health(suspect_node_config(parse_duration(options.node_lease_grace)), &metrics),
        client(with_flow_control(std::move(config)), client_options(std::move(tracer))),
        factory(client, factory_options()),
        deployments(informers_for<Deployment>(client::resources::deployments(),
                                              [this](auto& o) {
                                                o.scope.label_selector =
                                                    options.deployment_selector;
                                                o.indexers.merge(deployment_indexers());
                                              })),
        pods(informers_for<Pod>(client::resources::pods(),
                                [](auto& o) { o.indexers.merge(pod_indexers()); })),
        nodes(factory.informer_for<Node>(client::resources::nodes(), "nodes",
                                         [](auto& o) { o.indexers.merge(node_indexers()); })),
        hpas(options.detect_hpa
                 ? informers_for<HorizontalPodAutoscaler>(
                       hpa_resource(), [](auto& o) { o.indexers.merge(hpa_indexers()); })
                 : Informers<HorizontalPodAutoscaler>{}),
        node_leases(parse_duration(options.node_lease_grace).count() > 0
                        ? &factory.informer_for<Lease>(
                              client::resources::leases().in(kNodeLeaseNamespace), "leases")
                        : nullptr),
        writer(client),
        event_sink(client),
        event_metrics(registry),
        events(event_sink,
               client::EventBroadcasterConfig{
                   .component = "replica-guard", .instance = instance, .log = op::log},
               &event_metrics),
        tainter(client, &events, options.taint_suspect_nodes, options.dry_run),
        marker(client, events, MarkerCaches{view_of(deployments), view_of(pods), hpa_for()},
               options.mark_suspect_pods_not_ready, options.dry_run),
        reconciler(
            Caches{view_of(deployments), view_of(pods), nodes.indexer(), node_health, hpa_for()},
            writer, events, &metrics, reconciler_config(), [this] { return may_write(); }) {
    if (options.metrics_secure && options.metrics_bind_address != "0")
      secure_metrics = std::make_unique<SecureMetrics>(options, client, registry);
    if (options.leader_elect) {
      lease = std::make_unique<client::RestLeaseLock>(client, lease_namespace(),
                                                      options.leader_election_id);
      elector = std::make_unique<client::LeaderElector>(
          *lease, client::LeaderElectionConfig{
                      .identity = instance,
                      .lease_duration = parse_duration(options.leader_elect_lease_duration),
                      .renew_deadline = parse_duration(options.leader_elect_renew_deadline),
                      .retry_period = parse_duration(options.leader_elect_retry_period)});
      fence = std::make_unique<WriteFence>(
          [this] { return elector->is_leader(); },
          client::resources::leases().in(lease_namespace()).path(options.leader_election_id),
          registry);
    }
    for (auto* each : deployments) track(*each);
    for (auto* each : pods) track(*each);
    track(nodes);
    for (auto* each : hpas) track(*each);
    if (node_leases) track(*node_leases);
  }

  client::RestClientOptions client_options(std::shared_ptr<client::TransportTracer> tracer) {
    client::RestClientOptions o;
    o.observer = metrics.request_observer();
    // A connection for each worker's write, and a few for the Event writer, the lease and the
    // permission checks: reconciles never queue for a connection behind each other.
    o.transport.max_connections =
        std::max(o.transport.max_connections, static_cast<std::size_t>(options.workers) + 4);
    o.transport.tracer = std::move(tracer);
    // Every request names this replica, so the API server's audit (and kube-sim's write record)
    // can tell which replica wrote; with --leader-elect the fence checks each write as it leaves.
    o.transport.user_agent = std::string(rg::user_agent()) + " (" + instance + ")";
    o.transport.before_write = [this](const client::HttpRequest& request) {
      if (fence) fence->check(request);
    };
    return o;
  }

  // --kube-api-qps and --kube-api-burst: the client's token bucket (qps 0: none).
  client::RestConfig with_flow_control(client::RestConfig config) const {
    config.qps = options.kube_api_qps;
    config.burst = options.kube_api_burst;
    return config;
  }

  informer::SharedInformerFactoryOptions factory_options() {
    informer::SharedInformerFactoryOptions o;
    o.reflector.use_watch_list = options.watch_list;
    const auto check_period = parse_duration(options.cache_consistency_check_period);
    if (check_period.count() > 0)
      o.consistency_check = informer::ConsistencyCheckOptions{.period = check_period};
    o.observer = [this](const std::string& name) {
      auto observer = informer_metrics.observer(name);
      // Each (re)list of the node Leases restarts the count of every node's silence.
      return name == "leases" ? restart_on_relist(std::move(observer), node_health) : observer;
    };
    return o;
  }

  // A namespaced resource's informers: one cluster-wide, or one per --namespace (RBAC may grant
  // nothing cluster-wide). With several, each is named after its namespace too ("pods/shop"),
  // in metrics and on /readyz.
  template <class T>
  Informers<T> informers_for(
      const client::ResourceRef& resource,
      const std::function<void(typename informer::SharedIndexInformer<T>::Options&)>& tweak) {
    if (options.namespaces.empty())
      return {&factory.informer_for<T>(resource, resource.resource, tweak)};
    Informers<T> out;
    for (const std::string& ns : options.namespaces) {
      const std::string name =
          options.namespaces.size() == 1 ? resource.resource : resource.resource + "/" + ns;
      out.push_back(&factory.informer_for<T>(resource.in(ns), name, tweak));
    }
    return out;
  }

  template <class T>
  static std::size_t cached(const Informers<T>& informers) {
    return view_of(informers).size();
  }

  // Without --detect-hpa there is no HPA cache to ask: every Deployment is guarded.
  decltype(Caches::hpa_for) hpa_for() const {
    if (hpas.empty()) return {};
    return [view = view_of(hpas)](const std::string& ns, const std::string& name) {
      return hpa_targeting(view, ns + "/" + name);
    };
  }

  ReconcilerConfig reconciler_config() const {
    ReconcilerConfig c;
    c.policy.default_max_surge = IntOrPercent::parse(options.default_max_surge);
    c.policy.max_total_surge = options.max_total_surge;
    c.policy.scale_down_delay = parse_duration(options.scale_down_delay);
    c.node_grace_period = parse_duration(options.node_grace_period);
    c.max_unhealthy_node_fraction = options.max_unhealthy_node_fraction;
    c.dry_run = options.dry_run;
    return c;
  }

  template <class T>
  void track(informer::SharedIndexInformer<T>& informer) {
    informer_metrics.track_cache(
        informer.name(), [&informer] { return informer.indexer().size(); },
        [&informer] { return informer.last_sync_resource_version(); });
    informer_metrics.track_processing(
        informer.name(), [&informer] { return informer.fifo_depth(); },
        [&informer] { return informer.handler_stats(); });
  }

  bool may_write() const { return !elector || elector->is_leader(); }

  // --leader-election-namespace, else the pod's own namespace, else "default".
  std::string lease_namespace() const {
    if (!options.leader_election_namespace.empty()) return options.leader_election_namespace;
    const std::string own = pod_namespace();
    return own.empty() ? "default" : own;
  }

  // The startup self-check: until every permission the flags need is granted, the informers do
  // not start (no silent empty caches) and /readyz names what is missing; checked again every
  // 30 s, so granting it is enough. An API server that cannot answer the reviews (the API is
  // absent, or it fails them) is not a reason to stop: the operator starts without the check,
  // says so in the log and on /readyz, and the informers report whatever they are refused.
  asio::awaitable<void> check_permissions() {
    const auto wanted = required_permissions(options, lease_namespace());
    for (;;) {
      std::chrono::seconds retry{30};
      try {
        const auto missing = co_await missing_permissions(client, wanted);
        if (missing.empty()) {
          permission_problem.store(nullptr);
          log(spdlog::level::info, "permissions checked",
              {{"granted", std::to_string(wanted.size())}});
          co_return;
        }
        const std::string message = missing_permissions_message(missing);
        permission_problem.store(std::make_shared<const std::string>(message));
        log(spdlog::level::err, message, {});
      } catch (const client::ApiError& e) {
        log(spdlog::level::warn, "the permission self-check cannot run; starting without it",
            {{"error", e.what()}});
        permission_check_skipped.store(std::make_shared<const std::string>(e.what()));
        co_return;
      } catch (const std::exception& e) {
        if (client::is_cancellation(std::current_exception())) throw;
        log(spdlog::level::warn, "the permission self-check failed; retrying",
            {{"error", e.what()}});
        retry = std::chrono::seconds(5);
      }
      asio::steady_timer timer(co_await asio::this_coro::executor, retry);
      co_await timer.async_wait(asio::use_awaitable);
    }
  }

  void enqueue(const std::string& key) const {
    if (auto q = queue.load()) q->add(key);
  }

  void register_handlers() {
    register_event_handlers(
        WatchedInformers{deployments, pods, nodes, hpas, node_leases, node_health},
        [this](const std::string& key) { enqueue(key); }, parse_duration(options.sync_period));
  }

  // The node Lease sweep: the Deployments on a node that turned suspect, or stopped being
  // suspect, are reconciled.
  asio::awaitable<void> watch_node_leases() {
    if (!node_leases) co_return;
    co_await node_health.run(
        [this](std::vector<std::string> changed) { return after_sweep(std::move(changed)); });
  }

  // After each sweep: with --taint-suspect-nodes the leader first brings the taints in line (a
  // node that turned suspect is tainted before its Deployments are reconciled, so no surge pod is
  // scheduled onto it), then the Deployments on nodes whose standing changed are queued; then,
  // with --mark-suspect-pods-not-ready, the leader marks the guarded pods on suspect nodes
  // NotReady (the surge does not wait for those writes).
  asio::awaitable<void> after_sweep(std::vector<std::string> changed) {
    if (options.taint_suspect_nodes && queue.load()) co_await sync_taints();
    for (const std::string& node : changed) {
      for (const auto& key : deployments_for_node(view_of(deployments), view_of(pods), node))
        enqueue(key);
    }
    if (options.mark_suspect_pods_not_ready && queue.load()) {
      co_await marker.sync(node_health, surges_suppressed(nodes.indexer(), node_health,
                                                          options.max_unhealthy_node_fraction));
    }
  }

  // Brings every node's replica-guard taint in line with the suspects now. Without
  // --taint-suspect-nodes (only the first pass of a term) a Forbidden answer ends it: the
  // permission is not required then.
  asio::awaitable<void> sync_taints() {
    std::vector<std::string> suspects = node_health.suspects_now();
    const bool suppressed =
        surges_suppressed(nodes.indexer(), node_health, options.max_unhealthy_node_fraction);
    co_await tainter.sync(nodes.indexer(), std::move(suspects), suppressed,
                          !options.taint_suspect_nodes);
  }

  std::string metrics_page() const {
    return metrics_text(registry, {queue_metrics->collectable(), informer_metrics.collectable()});
  }

  HttpReply readyz(std::string_view query) const {
    return render_readyz({.synced = synced.load(),
                          .permission_problem = permission_problem.load(),
                          .permission_check_skipped = permission_check_skipped.load(),
                          .informers = factory.sync_state()},
                         query);
  }

  asio::awaitable<void> serve(const std::string& address, bool metrics_routes, bool probe_routes) {
    if (address == "0") co_return;
    HttpServer server(co_await asio::this_coro::executor, parse_bind_address(address));
    if (metrics_routes)
      server.route("/metrics", [this](std::string_view) {
        return HttpReply{200, "text/plain; version=0.0.4; charset=utf-8", metrics_page()};
      });
    if (probe_routes) {
      server.route("/healthz", [](std::string_view) {
        return HttpReply{200, "text/plain; charset=utf-8", "ok"};
      });
      server.route("/readyz", [this](std::string_view q) { return readyz(q); });
    }
    const bool secure = metrics_routes && secure_metrics;
    if (secure) secure_metrics->secure(server);
    const std::string served = metrics_routes && probe_routes ? "/metrics /healthz /readyz"
                               : metrics_routes               ? "/metrics"
                                                              : "/healthz /readyz";
    log(spdlog::level::info, "serving",
        {{"address", server.local_endpoint().address().to_string() + ":" +
                         std::to_string(server.local_endpoint().port())},
         {"endpoints", served},
         {"scheme", secure ? "https" : "http"}});
    if (!secure) {
      co_await server.run();
      co_return;
    }
    auto serving = server.run();
    auto watching = secure_metrics->watch_certificate();
    co_await (std::move(serving) && std::move(watching));
  }

  asio::awaitable<void> serve_all() {
    if (options.metrics_bind_address == options.health_probe_bind_address &&
        options.metrics_bind_address != "0" && !secure_metrics) {
      co_await serve(options.metrics_bind_address, true, true);
      co_return;
    }
    auto metrics_server = serve(options.metrics_bind_address, true, false);
    auto probe_server = serve(options.health_probe_bind_address, false, true);
    co_await (std::move(metrics_server) && std::move(probe_server));
  }

  // One worker: takes keys until the queue shuts down; deaf to cancellation so a reconcile in
  // flight finishes (its requests have their own timeouts).
  asio::awaitable<void> worker(std::shared_ptr<Queue> q) {
    co_await asio::this_coro::reset_cancellation_state(asio::disable_cancellation());
    while (auto key = co_await q->get()) {
      const ReconcileOutcome outcome = co_await reconciler.reconcile(*key);
      switch (outcome.next) {
        case ReconcileOutcome::Next::kDone:
          q->forget(*key);
          break;
        case ReconcileOutcome::Next::kRetry:
          q->add_rate_limited(*key);
          break;
        case ReconcileOutcome::Next::kAfter:
          q->forget(*key);
          q->add_after(*key, outcome.after);
          break;
      }
    }  // the key's Claim ends: done
  }

  asio::awaitable<void> run_workers(std::shared_ptr<Queue> q) {
    auto executor = co_await asio::this_coro::executor;
    std::vector<decltype(asio::co_spawn(executor, worker(q), asio::deferred))> workers;
    workers.reserve(static_cast<std::size_t>(options.workers));
    for (int i = 0; i < options.workers; ++i)
      workers.push_back(asio::co_spawn(executor, worker(q), asio::deferred));
    auto [order, errors] = co_await asio::experimental::make_parallel_group(std::move(workers))
                               .async_wait(asio::experimental::wait_for_all(), asio::use_awaitable);
    for (const auto& error : errors) {
      if (error) std::rethrow_exception(error);
    }
  }

  // Ends the term's queue when the term is cancelled; workers then finish their keys and end.
  asio::awaitable<void> shut_down_on_cancel(std::shared_ptr<Queue> q) {
    try {
      co_await sleep_forever();
    } catch (...) {
      if (!client::is_cancellation(std::current_exception())) throw;
    }
    queue.store(nullptr);
    q->shut_down();
    log(spdlog::level::info, "stopped taking work; finishing reconciles in flight", {});
  }

  // A term's first taint pass. It comes before any suspect (the detector waits a full grace
  // after start or leadership), so it removes every taint a previous run left -- also without
  // --taint-suspect-nodes, when RBAC lets it. Later passes follow the sweeps (after_sweep).
  asio::awaitable<void> remove_stale_taints() {
    try {
      co_await sync_taints();
    } catch (const std::exception& e) {
      if (client::is_cancellation(std::current_exception()) || !client::is_forbidden(e)) throw;
      log(spdlog::level::info,
          "nodes carry replica-guard.io/suspect taints a previous run left; not allowed to "
          "patch nodes, so they stay (remove them with replica-guard --remove-suspect-taints)",
          {{"error", e.what()}});
    }
  }

  // One term of writing: the whole run without leader election, or one leadership.
  asio::awaitable<void> lead() {
    auto executor = co_await asio::this_coro::executor;
    auto q = Queue::create(executor, nullptr,
                           {.name = "replica-guard", .metrics = queue_metrics, .clock = {}});
    if (elector) {
      metrics.leader(options.leader_election_id, true);
      node_health.observing_from_now();  // a new leader trusts no silence it did not watch
    }
    co_await remove_stale_taints();
    queue.store(q);  // the term has begun: after_sweep keeps the taints in line from now on
    for (const auto& d : view_of(deployments).list()) q->add(informer::meta_namespace_key(*d));
    auto all_workers = run_workers(q);
    auto stopper = shut_down_on_cancel(q);
    co_await (std::move(all_workers) && std::move(stopper));
    if (elector) metrics.leader(options.leader_election_id, false);
  }

  asio::awaitable<void> wait_for_caches() const {
    for (;;) {
      const auto results = co_await factory.wait_for_cache_sync(std::chrono::seconds(30));
      bool all = true;
      for (const auto& r : results) {
        if (r.synced) continue;
        all = false;
        log(spdlog::level::warn, "waiting for the cache to sync",
            {{"informer", r.name},
             {"health", informer::reflector::to_string(r.health)},
             {"problem", r.message}});
      }
      if (all) co_return;
    }
  }

  asio::awaitable<void> work() {
    try {
      co_await check_permissions();
      factory.start(co_await asio::this_coro::executor);
      co_await wait_for_caches();
      synced = true;
      log(spdlog::level::info, "caches synced",
          {{"deployments", std::to_string(cached(deployments))},
           {"pods", std::to_string(cached(pods))},
           {"nodes", std::to_string(nodes.indexer().size())},
           {"horizontalpodautoscalers", options.detect_hpa ? std::to_string(cached(hpas)) : "-"},
           {"node leases", node_leases ? std::to_string(node_leases->indexer().size()) : "-"}});
      if (elector) {
        auto term = [this] { return lead(); };
        co_await elector->run(term);
      } else {
        co_await lead();
      }
    } catch (...) {
      if (!client::is_cancellation(std::current_exception())) throw;
    }
  }

  asio::awaitable<void> run() {
    register_handlers();
    events.start(co_await asio::this_coro::executor);
    std::exception_ptr failure;
    try {
      auto serving = serve_all();
      auto working = work();
      auto sweeping = watch_node_leases();
      co_await (std::move(serving) && std::move(working) && std::move(sweeping));
    } catch (...) {
      if (!client::is_cancellation(std::current_exception())) failure = std::current_exception();
    }
    co_await asio::this_coro::reset_cancellation_state(asio::disable_cancellation());
    co_await asio::this_coro::throw_if_cancelled(false);
    co_await events.shut_down();  // after the last reconcile: flushes the queued Events
    co_await factory.shutdown();
    if (failure) std::rethrow_exception(failure);
    log(spdlog::level::info, "stopped", {});
  }

  Options options;
  std::string instance = new_identity();
  prometheus::Registry registry;
  OperatorMetrics metrics;
  informer::InformerMetrics informer_metrics;
  std::shared_ptr<workqueue::MetricsProvider> queue_metrics;
  NodeLeaseMonitor node_health;
  client::RestClient client;
  informer::SharedInformerFactory factory;
  Informers<Deployment> deployments;
  Informers<Pod> pods;
  informer::SharedIndexInformer<Node>& nodes;
  Informers<HorizontalPodAutoscaler> hpas;            ///< none without --detect-hpa
  informer::SharedIndexInformer<Lease>* node_leases;  ///< null with --node-lease-grace=0
  RestDeploymentWriter writer;
  client::RestEventSink event_sink;
  EventMetrics event_metrics;
  client::EventBroadcaster events;
  SuspectNodeTainter tainter;
  SuspectPodMarker marker;
  Reconciler reconciler;
  std::unique_ptr<client::RestLeaseLock> lease;
  std::unique_ptr<client::LeaderElector> elector;
  std::unique_ptr<WriteFence> fence;              ///< with --leader-elect
  std::unique_ptr<SecureMetrics> secure_metrics;  ///< with --metrics-secure
  std::atomic<std::shared_ptr<Queue>> queue;
  std::atomic<bool> synced{false};
  std::atomic<std::shared_ptr<const std::string>> permission_problem;
  /// Why the self-check could not run (the API server's error), when it could not.
  std::atomic<std::shared_ptr<const std::string>> permission_check_skipped;
};

Manager::Manager(Options options, client::RestConfig config,
                 std::shared_ptr<client::TransportTracer> tracer)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(config), std::move(tracer))) {}

Manager::~Manager() = default;

const std::string& Manager::identity() const { return impl_->instance; }

asio::awaitable<void> Manager::run() { return impl_->run(); }

}  // namespace rg::op
