// The Reconciler against filled caches and a recording writer: what it reads, what it writes and
// in which order, dry-run and standby never writing, conflicts retried, and the handlers' mapping
// from pods and nodes to Deployment keys, HPA-targeted Deployments, caches split by namespace.
#include <doctest/doctest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>

#include <algorithm>

#include "client/rest/api_error.hpp"
#include "informer/index_funcs.hpp"
#include "operator/annotations.hpp"
#include "operator/event_handlers.hpp"
#include "operator/hpa_lookup.hpp"
#include "operator/reconciler.hpp"

namespace asio = boost::asio;
using namespace rg;
using namespace std::chrono_literals;

namespace {

struct Write {
  std::string what;  // "annotate" or "scale"
  std::string resource_version;
  std::vector<std::pair<std::string, std::optional<std::string>>> annotations;
  std::int32_t replicas = 0;
};

client::ApiError conflict_error() {
  client::Status status;
  status.status = "Failure";
  status.message = "the object has been modified";
  status.reason = "Conflict";
  status.code = 409;
  return client::ApiError(409, status);
}

struct RecordingWriter final : op::DeploymentWriter {
  std::vector<Write> writes;
  bool conflict = false;
  asio::awaitable<std::string> patch_annotations(
      const std::string&, const std::string&, const std::string& rv,
      const std::vector<std::pair<std::string, std::optional<std::string>>>& annotations) override {
    if (conflict) throw conflict_error();
    writes.push_back({"annotate", rv, annotations, 0});
    co_return rv + "+1";
  }
  asio::awaitable<std::string> scale(const std::string&, const std::string&, const std::string& rv,
                                     std::int32_t replicas) override {
    if (conflict) throw conflict_error();
    writes.push_back({"scale", rv, {}, replicas});
    co_return rv + "+1";
  }
};

// Keeps what the reconciler records, at once (client-go's FakeRecorder); the broadcaster behind
// the real recorder is tested in event_recorder_test.cpp.
struct FakeRecorder final : client::EventRecorder {
  std::vector<client::Event> events;
  void record(const client::ObjectReference& object, std::string_view type, std::string_view reason,
              std::string_view message) override {
    client::Event e;
    e.involved_object = object;
    e.type = type;
    e.reason = reason;
    e.message = message;
    events.push_back(std::move(e));
  }
};

std::shared_ptr<const client::Deployment> deployment(std::int32_t replicas,
                                                     client::Labels annotations,
                                                     std::string_view resource_version = "10") {
  auto d = std::make_shared<client::Deployment>();
  d->metadata.namespace_ = "shop";
  d->metadata.name = "web";
  d->metadata.uid = "uid-web";
  d->metadata.resource_version = resource_version;
  d->metadata.annotations = std::move(annotations);
  d->spec.replicas = replicas;
  d->spec.selector.match_labels = {{"app", "web"}};
  return d;
}

// The Deployment after the operator's own scale: its field manager owns spec.replicas.
std::shared_ptr<const client::Deployment> scaled_by_operator(
    std::int32_t replicas, client::Labels annotations, std::string_view resource_version = "10") {
  auto d = std::make_shared<client::Deployment>(
      *deployment(replicas, std::move(annotations), resource_version));
  client::ManagedFieldsEntry entry;
  entry.manager = op::kFieldManager;
  entry.operation = "Update";
  entry.subresource = "scale";
  entry.fields_v1.spec.emplace().replicas.emplace();
  d->metadata.managed_fields.push_back(entry);
  return d;
}

std::shared_ptr<const client::Pod> pod(std::string_view name, std::string_view node, bool ready,
                                       std::string app = "web") {
  auto p = std::make_shared<client::Pod>();
  p->metadata.namespace_ = "shop";
  p->metadata.name = name;
  p->metadata.labels = {{"app", std::move(app)}};
  p->spec.node_name = node;
  client::PodCondition condition;
  condition.type = "Ready";
  condition.status = ready ? "True" : "False";
  p->status.conditions.push_back(condition);
  return p;
}

std::shared_ptr<const client::Node> node(std::string_view name, std::string ready,
                                         std::string since = "2020-01-01T00:00:00Z") {
  auto n = std::make_shared<client::Node>();
  n->metadata.name = name;
  client::NodeCondition condition;
  condition.type = "Ready";
  condition.status = std::move(ready);
  condition.last_transition_time = std::move(since);
  n->status.conditions.push_back(condition);
  return n;
}

using TimePoint = std::chrono::steady_clock::time_point;
const TimePoint kT0 = TimePoint(1'000'000s);

struct World {
  informer::Indexer<client::Deployment> deployments{op::deployment_indexers()};
  informer::Indexer<client::Pod> pods{op::pod_indexers()};
  informer::Indexer<client::Node> nodes{op::node_indexers()};
  TimePoint now = kT0;
  op::NodeLeaseMonitor node_health{op::SuspectNodeConfig{}, nullptr, [this] { return now; }};
  informer::Indexer<client::HorizontalPodAutoscaler> hpas{op::hpa_indexers()};
  RecordingWriter writer;
  FakeRecorder sink;
  client::EventRecorder& events = sink;
  bool leader = true;

  std::unique_ptr<op::Reconciler> reconciler(op::ReconcilerConfig config = {}) {
    return std::make_unique<op::Reconciler>(
        op::Caches{deployments, pods, nodes, node_health,
                   [this](const std::string& ns, const std::string& name) {
                     return op::hpa_targeting(hpas, ns + "/" + name);
                   }},
        writer, events, nullptr, config, [this] { return leader; });
  }

  op::ReconcileOutcome reconcile(op::ReconcilerConfig config = {}) {
    return reconcile_with(*reconciler(config));
  }

  static op::ReconcileOutcome reconcile_with(op::Reconciler& reconciler) {
    asio::io_context io;
    op::ReconcileOutcome outcome;
    asio::co_spawn(io, reconciler.reconcile("shop/web"),
                   [&](const std::exception_ptr& e, op::ReconcileOutcome o) {
                     if (e) std::rethrow_exception(e);
                     outcome = o;
                   });
    io.run();
    return outcome;
  }

  // The node in the cache, as the operator saw it `ago` (NotReady since then, if it is).
  void add_node(std::shared_ptr<const client::Node> n, std::chrono::milliseconds ago = 1h) {
    const TimePoint today = now;
    now -= ago;
    nodes.add(n);
    node_health.node_seen(*n);
    now = today;
  }

  // Three pods of web, the third on a node that failed long ago.
  void cluster_with_failed_node() {
    add_node(node("node-1", "True"));
    add_node(node("node-2", "True"));
    add_node(node("node-3", "Unknown"));
    pods.add(pod("web-a", "node-1", true));
    pods.add(pod("web-b", "node-2", true));
    pods.add(pod("web-c", "node-3", true));
    pods.add(pod("api-a", "node-3", true, "api"));
  }
};

const client::Labels kManaged{{std::string(op::kEnabledAnnotation), "true"},
                              {std::string(op::kDesiredAnnotation), "3"},
                              {std::string(op::kAppliedAnnotation), "3"}};

}  // namespace

TEST_CASE("first sight writes the desired annotation, nothing else") {
  World w;
  w.cluster_with_failed_node();
  w.deployments.add(deployment(3, {{std::string(op::kEnabledAnnotation), "true"}}));
  const auto outcome = w.reconcile();
  CHECK(outcome.next == op::ReconcileOutcome::Next::kDone);
  REQUIRE(w.writer.writes.size() == 1);
  CHECK(w.writer.writes[0].what == "annotate");
  CHECK(w.writer.writes[0].resource_version == "10");
  REQUIRE(w.sink.events.size() == 1);
  CHECK(w.sink.events[0].reason == "DesiredReplicasRecorded");
}

TEST_CASE("a pod stranded on a failed node: one write, the scale, at the cached resourceVersion") {
  World w;
  w.cluster_with_failed_node();
  w.deployments.add(deployment(3, kManaged));
  w.reconcile();
  REQUIRE(w.writer.writes.size() == 1);
  CHECK(w.writer.writes[0].what == "scale");
  CHECK(w.writer.writes[0].replicas == 4);
  CHECK(w.writer.writes[0].resource_version == "10");
  REQUIRE(w.sink.events.size() == 1);
  CHECK(w.sink.events[0].reason == "ScaledUpForStrandedPods");
  CHECK(w.sink.events[0].involved_object.name == "web");
  CHECK(w.sink.events[0].message == "scaling 3 -> 4: 1 pods stranded on failed nodes node-3");
}

TEST_CASE("dry-run and a standby never write, but report") {
  SUBCASE("dry-run") {
    World w;
    w.cluster_with_failed_node();
    w.deployments.add(
        deployment(3, {{std::string(op::kEnabledAnnotation), "true"}}));  // not even recorded
    op::ReconcilerConfig config;
    config.dry_run = true;
    w.reconcile(config);
    CHECK(w.writer.writes.empty());
    REQUIRE(w.sink.events.size() == 1);
    CHECK(w.sink.events[0].message.find("dry-run, not done: scaling 3 -> 4") == 0);
  }
  SUBCASE("standby") {
    World w;
    w.leader = false;
    w.cluster_with_failed_node();
    w.deployments.add(deployment(3, kManaged));
    w.reconcile();
    CHECK(w.writer.writes.empty());
  }
}

TEST_CASE("a conflict asks for a rate-limited retry") {
  World w;
  w.cluster_with_failed_node();
  w.deployments.add(deployment(3, kManaged));
  w.writer.conflict = true;
  CHECK(w.reconcile().next == op::ReconcileOutcome::Next::kRetry);
}

TEST_CASE("a Deployment gone from the cache is done with") {
  World w;
  CHECK(w.reconcile().next == op::ReconcileOutcome::Next::kDone);
  CHECK(w.writer.writes.empty());
}

TEST_CASE("pods on a node within the grace period ask to be looked at again") {
  World w;
  w.add_node(node("node-1", "True"));
  // Failed five seconds ago: within the default 30 s grace.
  w.add_node(node("node-2", "False"), 5s);
  w.pods.add(pod("web-a", "node-1", true));
  w.pods.add(pod("web-b", "node-2", true));
  w.deployments.add(deployment(2, {{std::string(op::kEnabledAnnotation), "true"},
                                   {std::string(op::kDesiredAnnotation), "2"},
                                   {std::string(op::kAppliedAnnotation), "2"}}));
  const auto outcome = w.reconcile();
  CHECK(w.writer.writes.empty());
  CHECK(outcome.next == op::ReconcileOutcome::Next::kAfter);
}

TEST_CASE("opting out restores replicas first, then removes the annotations") {
  // Removing the annotations first would leave a failed restore unretried: without them the
  // Deployment is no longer the operator's.
  World w;
  w.deployments.add(deployment(
      8, {{std::string(op::kDesiredAnnotation), "6"}, {std::string(op::kAppliedAnnotation), "8"}}));
  w.reconcile();
  REQUIRE(w.writer.writes.size() == 2);
  CHECK(w.writer.writes[0].what == "scale");
  CHECK(w.writer.writes[0].replicas == 6);
  CHECK(w.writer.writes[1].what == "annotate");
  CHECK(w.writer.writes[1].resource_version == "10+1");
  for (const auto& [key, value] : w.writer.writes[1].annotations) CHECK_FALSE(value.has_value());
}

TEST_CASE("handlers map pods and nodes to the Deployments that select them") {
  World w;
  w.cluster_with_failed_node();
  w.deployments.add(deployment(3, kManaged));
  auto plain = std::make_shared<client::Deployment>(*deployment(1, {}));
  plain->metadata.name = "not-opted-in";
  w.deployments.add(plain);
  CHECK(op::deployments_for_pod(w.deployments, *pod("web-x", "node-1", true)) ==
        std::vector<std::string>{"shop/web"});
  CHECK(op::deployments_for_pod(w.deployments, *pod("api-x", "node-1", true, "api")).empty());
  CHECK(op::deployments_for_node(w.deployments, w.pods, "node-3") ==
        std::vector<std::string>{"shop/web"});
  CHECK(op::deployments_for_node(w.deployments, w.pods, "node-9").empty());
}

TEST_CASE("a pod reaches Deployments selecting it by several matchLabels or by expressions only") {
  World w;
  auto two_labels = std::make_shared<client::Deployment>(*deployment(3, kManaged));
  two_labels->metadata.name = "web-canary";
  two_labels->spec.selector.match_labels = {{"app", "web"}, {"track", "canary"}};
  auto expressions = std::make_shared<client::Deployment>(*deployment(3, kManaged));
  expressions->metadata.name = "web-any";
  expressions->spec.selector.match_labels.clear();
  expressions->spec.selector.match_expressions = {{"app", "In", {"web", "api"}}};
  auto elsewhere = std::make_shared<client::Deployment>(*deployment(3, kManaged));
  elsewhere->metadata.namespace_ = "blog";
  w.deployments.add(two_labels);
  w.deployments.add(expressions);
  w.deployments.add(elsewhere);
  auto canary = std::make_shared<client::Pod>(*pod("web-c", "node-1", true));
  client::Labels labels = canary->metadata.labels;
  labels.emplace("track", "canary");
  canary->metadata.labels = labels;
  auto found = op::deployments_for_pod(w.deployments, *canary);
  std::sort(found.begin(), found.end());
  CHECK(found == std::vector<std::string>{"shop/web-any", "shop/web-canary"});
  CHECK(op::deployments_for_pod(w.deployments, *pod("web-s", "node-1", true)) ==
        std::vector<std::string>{"shop/web-any"});
}

TEST_CASE("a Deployment an HPA scales gets a Warning and no write, even with pods stranded") {
  World w;
  w.cluster_with_failed_node();
  w.deployments.add(deployment(3, kManaged));
  const auto hpa = [](std::string_view name, std::string kind, std::string target) {
    auto h = std::make_shared<client::HorizontalPodAutoscaler>();
    h->metadata.namespace_ = "shop";
    h->metadata.name = name;
    h->spec.scale_target_ref = {"apps/v1", std::move(kind), std::move(target)};
    return h;
  };
  SUBCASE("targeting it") {
    w.hpas.add(hpa("web", "Deployment", "web"));
    const auto outcome = w.reconcile();
    CHECK(outcome.next == op::ReconcileOutcome::Next::kDone);
    CHECK(w.writer.writes.empty());
    REQUIRE(w.sink.events.size() == 1);
    CHECK(w.sink.events[0].type == "Warning");
    CHECK(w.sink.events[0].reason == "HorizontalPodAutoscalerPresent");
  }
  SUBCASE("targeting something else of the same name: guarded as usual") {
    w.hpas.add(hpa("web", "StatefulSet", "web"));
    w.hpas.add(hpa("api", "Deployment", "api"));
    w.reconcile();
    REQUIRE(w.writer.writes.size() == 1);
    CHECK(w.writer.writes[0].replicas == 4);
  }
}

TEST_CASE("caches split by namespace read as one: a stranded pod in the second is found") {
  World w;
  informer::Indexer<client::Deployment> blog_deployments{op::deployment_indexers()};
  informer::Indexer<client::Pod> blog_pods{op::pod_indexers()};
  w.cluster_with_failed_node();  // shop's pods, in w.pods
  auto blog = std::make_shared<client::Deployment>(*deployment(3, kManaged));
  blog->metadata.namespace_ = "blog";
  blog_deployments.add(blog);
  for (const auto* name : {"web-a", "web-b", "web-c"}) {
    auto p = std::make_shared<client::Pod>(*w.pods.get_by_key(std::string("shop/") + name));
    p->metadata.namespace_ = "blog";
    blog_pods.add(p);
  }
  op::Reconciler reconciler(
      op::Caches{op::CacheView<client::Deployment>({&w.deployments, &blog_deployments}),
                 op::CacheView<client::Pod>({&w.pods, &blog_pods}),
                 w.nodes,
                 w.node_health,
                 {}},
      w.writer, w.events, nullptr, {}, [] { return true; });
  auto keys = op::deployments_for_node(
      op::CacheView<client::Deployment>({&w.deployments, &blog_deployments}),
      op::CacheView<client::Pod>({&w.pods, &blog_pods}), "node-3");
  std::sort(keys.begin(), keys.end());
  CHECK(keys == std::vector<std::string>{"blog/web"});  // shop/web is not in the caches
  asio::io_context io;
  asio::co_spawn(io, reconciler.reconcile("blog/web"), [](const std::exception_ptr& e, auto) {
    if (e) std::rethrow_exception(e);
  });
  io.run();
  REQUIRE(w.writer.writes.size() == 1);
  CHECK(w.writer.writes[0].replicas == 4);
}

TEST_CASE("a scale is recorded by the reconcile its echo brings; a person's count is adopted") {
  // The cache shows the scale 3 -> 4 (and a new operator, without memory, reconciles it).
  World w;
  w.cluster_with_failed_node();
  SUBCASE("the operator's field manager owns spec.replicas: its own scale, recorded") {
    w.deployments.add(scaled_by_operator(4, kManaged));
    w.reconcile();
    REQUIRE(w.writer.writes.size() == 1);
    CHECK(w.writer.writes[0].what == "annotate");
    CHECK(w.writer.writes[0].resource_version == "10");
    CHECK(w.writer.writes[0].annotations ==
          std::vector<std::pair<std::string, std::optional<std::string>>>{
              {std::string(op::kAppliedAnnotation), "4"}});
    CHECK(w.sink.events.empty());
  }
  SUBCASE("someone else owns it: their count is the new desired") {
    w.deployments.add(deployment(4, kManaged));
    w.reconcile();
    REQUIRE(w.writer.writes.size() == 1);
    CHECK(w.writer.writes[0].what == "annotate");
    REQUIRE(w.sink.events.size() == 1);
    CHECK(w.sink.events[0].reason == "DesiredReplicasAdopted");
  }
}

TEST_CASE("a cache still showing what the operator's own writes replaced is waited out") {
  // A pod event re-queues the Deployment while its scale is under way; reconciled from a cache
  // that does not show the scale yet, it would scale again with a stale resourceVersion and get
  // a 409. It waits for the echo instead, which re-queues the key.
  World w;
  w.cluster_with_failed_node();
  w.deployments.add(deployment(3, kManaged));  // resourceVersion "10"
  const auto reconciler = w.reconciler();
  World::reconcile_with(*reconciler);
  REQUIRE(w.writer.writes.size() == 1);  // the scale at "10"

  SUBCASE("the cache before the scale: no write, a bounded wait") {
    const auto outcome = World::reconcile_with(*reconciler);
    CHECK(w.writer.writes.size() == 1);
    CHECK(outcome.next == op::ReconcileOutcome::Next::kAfter);
    CHECK(outcome.after > 0ms);
    CHECK(outcome.after <= op::ReconcilerConfig{}.write_echo_timeout);
  }
  SUBCASE("the scale's echo ends the wait: the record is written at its resourceVersion") {
    w.deployments.update(scaled_by_operator(4, kManaged, "10+1"));
    World::reconcile_with(*reconciler);
    REQUIRE(w.writer.writes.size() == 2);
    CHECK(w.writer.writes[1].what == "annotate");
    CHECK(w.writer.writes[1].resource_version == "10+1");
  }
  SUBCASE("someone else's write (a resourceVersion the operator never replaced) ends it too") {
    w.deployments.update(deployment(3, kManaged, "42"));
    World::reconcile_with(*reconciler);
    CHECK(w.writer.writes.size() > 1);
  }
}

TEST_CASE("the wait for an echo that never comes ends at the timeout") {
  World w;
  w.cluster_with_failed_node();
  w.deployments.add(deployment(3, kManaged));
  op::ReconcilerConfig config;
  config.write_echo_timeout = 0ms;
  const auto reconciler = w.reconciler(config);
  World::reconcile_with(*reconciler);
  REQUIRE(w.writer.writes.size() == 1);
  World::reconcile_with(*reconciler);  // the same stale cache: planned and written again
  CHECK(w.writer.writes.size() == 2);
}

TEST_CASE("too many unhealthy nodes means more than the fraction, never with no nodes") {
  CHECK_FALSE(op::too_many_unhealthy(1, 3, 0.55));
  CHECK(op::too_many_unhealthy(2, 3, 0.55));
  CHECK_FALSE(op::too_many_unhealthy(2, 4, 0.5));  // exactly the fraction is still allowed
  CHECK(op::too_many_unhealthy(3, 4, 0.5));
  CHECK_FALSE(op::too_many_unhealthy(0, 0, 0.55));
}

TEST_CASE("most nodes unhealthy: no surge, said with SurgeSuppressed (counted by the node index)") {
  World w;
  w.cluster_with_failed_node();               // node-3 Unknown: 1 of 3, a surge
  w.nodes.update(node("node-2", "Unknown"));  // 2 of 3 > 0.55: a likely partition
  w.deployments.add(deployment(3, kManaged));
  w.reconcile();
  CHECK(w.writer.writes.empty());
  REQUIRE_FALSE(w.sink.events.empty());
  CHECK(w.sink.events[0].reason == "SurgeSuppressed");

  w.nodes.update(node("node-2", "True"));  // back to 1 of 3: the surge goes ahead
  w.sink.events.clear();
  w.reconcile();
  REQUIRE(w.writer.writes.size() == 1);
  CHECK(w.writer.writes[0].replicas == 4);
}

namespace {

std::shared_ptr<const client::Lease> node_lease(std::string_view node, int renewal) {
  auto lease = std::make_shared<client::Lease>();
  lease->metadata.namespace_ = "kube-node-lease";
  lease->metadata.name = node;
  lease->spec.renew_time = "renewal-" + std::to_string(renewal);
  return lease;
}

// Nodes node-1..node-N Ready, web's pods on node-1..3, every kubelet renewing its Lease every
// 10 s for a minute except those in `dead`, which stopped a minute ago (still Ready: the node
// lifecycle controller has not noticed yet).
void cluster_with_silent_nodes(World& w, int nodes, const std::vector<std::string>& dead) {
  w.now = kT0 - 60s;
  for (int i = 1; i <= nodes; ++i) {
    const std::string name = "node-" + std::to_string(i);
    w.add_node(node(name, "True"), 0ms);
    w.node_health.lease_seen(*node_lease(name, 0));
  }
  w.node_health.observing_from_now();
  for (int round = 1; round <= 6; ++round) {
    w.now += 10s;
    for (int i = 1; i <= nodes; ++i) {
      const std::string name = "node-" + std::to_string(i);
      if (std::find(dead.begin(), dead.end(), name) == dead.end())
        w.node_health.lease_seen(*node_lease(name, round));
    }
  }
  w.node_health.sweep();
  w.pods.add(pod("web-a", "node-1", true));
  w.pods.add(pod("web-b", "node-2", true));
  w.pods.add(pod("web-c", "node-3", true));
}

}  // namespace

TEST_CASE("a pod on a node whose Lease expired is stranded before NotReady, with the evidence") {
  World w;
  cluster_with_silent_nodes(w, 4, {"node-3"});
  w.deployments.add(deployment(3, kManaged));
  w.reconcile();
  REQUIRE(w.writer.writes.size() == 1);
  CHECK(w.writer.writes[0].replicas == 4);
  REQUIRE(w.sink.events.size() == 1);
  CHECK(w.sink.events[0].reason == "ScaledUpForStrandedPods");
  CHECK(w.sink.events[0].message ==
        "scaling 3 -> 4: 1 pods stranded on failed nodes node-3 (node-3: no Lease renewal "
        "observed for 50s while 3 of 3 other nodes renewed)");
}

TEST_CASE("a Deployment's node-grace-period annotation holds the Lease signal back") {
  World w;
  cluster_with_silent_nodes(w, 4, {"node-3"});
  auto annotations = kManaged;
  annotations.emplace(std::string(op::kNodeGraceAnnotation), "5m");
  w.deployments.add(deployment(3, annotations));
  const auto outcome = w.reconcile();
  CHECK(w.writer.writes.empty());
  CHECK(outcome.next == op::ReconcileOutcome::Next::kAfter);
}

TEST_CASE("suspect and NotReady nodes count together against --max-unhealthy-node-fraction") {
  World w;
  cluster_with_silent_nodes(w, 5, {"node-3", "node-4"});  // 2 of 5 suspect: the others renew
  w.add_node(node("node-5", "Unknown"), 0ms);             // and a third one NotReady
  w.deployments.add(deployment(3, kManaged));
  op::ReconcilerConfig config;
  config.max_unhealthy_node_fraction = 0.5;  // 3 of 5 are unhealthy
  w.reconcile(config);
  CHECK(w.writer.writes.empty());
  REQUIRE_FALSE(w.sink.events.empty());
  CHECK(w.sink.events[0].reason == "SurgeSuppressed");
}
