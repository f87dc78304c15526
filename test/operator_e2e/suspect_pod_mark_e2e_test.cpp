// --mark-suspect-pods-not-ready end to end against kube-sim, Kubernetes' timings scaled by 1/10
// (Lease renewals and the kubelet's pod status sync every second, --node-lease-grace 2.4 s) and
// the node lifecycle controller slowed down, so that every Ready=False is replica-guard's: the
// guarded pods of a dead node lose Ready while the node still says Ready, each with a Warning
// Event NodeLeaseExpired, and stay so (a stopped kubelet writes nothing back); a live kubelet
// whose Lease renewals are late puts Ready back on its next pod status sync, which proves the node
// alive and ends the suspicion; --dry-run and suppressed surges write nothing. And kube-sim's own
// part: a kubelet's write-back reaches watchers as a MODIFIED event.
#include <doctest/doctest.h>

#include "operator/suspect_pod_marks.hpp"
#include "sim/resource_table.hpp"
#include "test/operator_e2e/operator_fixture.hpp"

namespace rg::op::testing {
namespace {

namespace json = boost::json;
using sim::testing::condition_field;
using sim::testing::condition_status;
using sim::testing::node_of;

Options mark_options() {
  Options options = suspect_node_options();
  options.mark_suspect_pods_not_ready = true;
  return options;
}

std::string name_of(const json::object& object) {
  return std::string(object.at("metadata").at("name").as_string());
}

// The live pods of `app` bound to `node`.
std::vector<json::object> pods_on(const OperatorFixture& f, const std::string& app,
                                  const std::string& node) {
  std::vector<json::object> out;
  for (auto& pod : f.cluster.pods_of(app))
    if (node_of(pod) == node) out.push_back(std::move(pod));
  return out;
}

// No surge: a scale-down after a surge could delete the very pods a test watches (the ReplicaSet
// deletes pods on the busiest node first).
const std::vector<std::pair<std::string, std::string>> kNoSurge = {
    {"replica-guard.io/max-surge", "0"}};

bool ready(const OperatorFixture& f, const std::string& pod) {
  return condition_status(f.cluster.get("", "pods", "default", pod), "Ready") == "True";
}

// Whether every one of `pods` has Ready `status` now.
bool all_ready_status(const OperatorFixture& f, const std::vector<json::object>& pods,
                      bool status) {
  return std::all_of(pods.begin(), pods.end(),
                     [&](const json::object& pod) { return ready(f, name_of(pod)) == status; });
}

}  // namespace

TEST_CASE("a suspect node's guarded pods lose Ready while the node still says Ready") {
  OperatorFixture f(4, suspect_node_cluster_options());
  f.start_operator(mark_options());
  guard_and_settle(f, "web", 8, kNoSurge);
  f.cluster.create_deployment("plain", 8);  // not opted in
  REQUIRE(f.run_until([&] { return f.cluster.all_ready("plain", 8); }));
  const auto failed = f.fail_busiest_node("web");
  const auto web = pods_on(f, "web", failed.node);
  const auto plain = pods_on(f, "plain", failed.node);
  REQUIRE(!web.empty());
  REQUIRE(!plain.empty());

  bool node_ready_when_marked = false;
  CHECK(f.run_until([&] {
    node_ready_when_marked = f.node_ready(failed.node);
    return all_ready_status(f, web, false);
  }));
  CHECK_MESSAGE(node_ready_when_marked, "the node was NotReady before its pods were marked");
  for (const auto& before : web) {
    const std::string pod = name_of(before);
    CAPTURE(pod);
    CHECK(f.run_until([&] { return f.has_event(pod, kNodeLeaseExpiredReason); }));
    CHECK(f.event_message(pod, kNodeLeaseExpiredReason).find("no Lease renewal observed") !=
          std::string::npos);
    const auto after = f.cluster.get("", "pods", "default", pod);
    // Only the status and its transition time change, as MarkPodsNotReady does.
    CHECK(condition_field(after, "Ready", "reason") == condition_field(before, "Ready", "reason"));
    CHECK(condition_field(after, "Ready", "message") ==
          condition_field(before, "Ready", "message"));
    CHECK(condition_field(after, "Ready", "lastTransitionTime") >=
          condition_field(before, "Ready", "lastTransitionTime"));
    CHECK(condition_status(after, "ContainersReady") == "True");
  }
  // Pods of Deployments that did not opt in are not touched.
  CHECK(all_ready_status(f, plain, true));
  // A stopped kubelet puts nothing back, through several of its status sync periods...
  CHECK_FALSE(
      f.run_until([&] { return !all_ready_status(f, web, false); }, std::chrono::seconds(3)));
  // ...and once, for all those syncs: no second mark, no second Event.
  for (const auto& pod : web) CHECK(f.event_count(name_of(pod), kNodeLeaseExpiredReason) == 1);

  // The kubelet is back: it reports its pods Ready again at once (a fresh kubelet syncs).
  f.cluster.stop_kubelet(failed.node, false);
  CHECK(f.run_until([&] { return all_ready_status(f, web, true); }));
}

TEST_CASE("a live kubelet puts Ready back: that proves the node alive and ends the suspicion") {
  OperatorFixture f(4, suspect_node_cluster_options());
  Options options = mark_options();
  options.taint_suspect_nodes = true;
  f.start_operator(options);
  guard_and_settle(f, "web", 8, kNoSurge);
  const std::string node = f.busiest_node("web").node;
  const auto web = pods_on(f, "web", node);
  REQUIRE(!web.empty());
  const std::string pod = name_of(web.front());
  // The kubelet's Lease renewals (and node status) land 30 s late; its pod status syncs do not
  // wait. The Lease stays silent all along, the node stays suspect by it.
  f.cluster.cluster.delay_kubelet(node, std::chrono::seconds(30));
  // Marked, put back by the kubelet (proof of life: the taint goes), suspect again a grace later
  // (a new episode: marked again).
  bool marked = false;
  bool put_back = false;
  bool untainted = false;
  CHECK(f.run_until(
      [&] {
        const bool now_ready = ready(f, pod);
        marked = marked || !now_ready;
        put_back = put_back || (marked && now_ready);
        const auto taints = f.cluster.get("", "nodes", "", node).at("spec").as_object();
        const bool tainted = taints.contains("taints") && !taints.at("taints").as_array().empty();
        untainted = untainted || (put_back && !tainted);
        return put_back && untainted && f.event_count(pod, kNodeLeaseExpiredReason) >= 2;
      },
      std::chrono::seconds(25)));
  CAPTURE(marked);
  CAPTURE(put_back);
  CAPTURE(untainted);
  // The kubelet keeps putting it back: it is Ready again within a status sync or two.
  CHECK(f.run_until([&] { return ready(f, pod); }, std::chrono::seconds(3)));
  f.cluster.cluster.delay_kubelet(node, std::chrono::milliseconds(0));
}

TEST_CASE("--dry-run: no pod loses Ready, an Event says it would") {
  OperatorFixture f(4, suspect_node_cluster_options());
  Options options = mark_options();
  options.dry_run = true;
  f.start_operator(options);
  f.create_guarded_deployment("web", 8);  // dry-run records no annotation: no guard_and_settle
  REQUIRE(f.run_until([&] { return f.ready_pods("web") == 8; }));
  const auto failed = f.fail_busiest_node("web");
  const auto web = pods_on(f, "web", failed.node);
  REQUIRE(!web.empty());
  const std::string pod = name_of(web.front());
  CHECK(f.run_until([&] { return f.has_event(pod, kNodeLeaseExpiredReason); }));
  CHECK(f.event_message(pod, kNodeLeaseExpiredReason).find("dry-run, not done") !=
        std::string::npos);
  CHECK(all_ready_status(f, web, true));
  // Said once per episode, not at every pass.
  CHECK_FALSE(f.run_until([&] { return f.event_count(pod, kNodeLeaseExpiredReason) > 1; },
                          std::chrono::seconds(2)));
  CHECK(all_ready_status(f, web, true));
}

TEST_CASE("surges suppressed: no pod loses Ready") {
  OperatorFixture f(5, suspect_node_cluster_options());
  Options options = mark_options();
  options.max_unhealthy_node_fraction = 0.1;  // one unhealthy node of five is already too many
  f.start_operator(options);
  guard_and_settle(f, "web", 10, {{"replica-guard.io/max-surge", "100%"}});
  const auto failed = f.fail_busiest_node("web");
  const auto web = pods_on(f, "web", failed.node);
  CHECK(f.run_until([&] { return f.has_event("web", "SurgeSuppressed"); }));
  CHECK_FALSE(
      f.run_until([&] { return !all_ready_status(f, web, true); }, std::chrono::seconds(3)));
}

TEST_CASE("kube-sim: a live kubelet's write-back is a MODIFIED event; a stopped one writes none") {
  OperatorFixture f(2, suspect_node_cluster_options());
  f.cluster.create_deployment("web", 2);
  REQUIRE(f.run_until([&] { return f.cluster.all_ready("web", 2); }));
  const auto pods = f.cluster.pods_of("web");
  REQUIRE(node_of(pods[0]) != node_of(pods[1]));
  const std::string live = name_of(pods[0]);
  const std::string dead = name_of(pods[1]);
  f.cluster.cluster.stop_kubelet(node_of(pods[1]));  // no API write, as a real death
  auto& store = f.cluster.store;
  auto watch = store.watch(f.cluster.type("", "pods"), "default", store.resource_version());
  f.cluster.set_condition_status("pods", "default", live, "Ready", "False");
  f.cluster.set_condition_status("pods", "default", dead, "Ready", "False");
  // Modified by whom, to what: the events after our own two writes.
  std::map<std::string, std::vector<std::string>> ready_written;  // pod -> Ready of each event
  const auto drain = [&] {
    for (const auto& event : watch.watcher->take()) {
      if (event.type != sim::EventType::kModified) continue;
      ready_written[event.object->name].push_back(condition_status(event.object->parse(), "Ready"));
    }
  };
  CHECK(f.run_until([&] {
    drain();
    const auto& seen = ready_written[live];
    return seen.size() >= 2 && seen.back() == "True";
  }));
  // Three more status sync periods: the stopped kubelet's pod saw only our write.
  f.run_until(
      [&] {
        drain();
        return false;
      },
      std::chrono::seconds(3));
  CHECK(ready_written[dead] == std::vector<std::string>{"False"});
  CHECK(condition_status(f.cluster.get("", "pods", "default", dead), "Ready") == "False");
  store.unwatch(f.cluster.type("", "pods"), watch.watcher);
}

}  // namespace rg::op::testing
