// replica-guard end to end against kube-sim: the policy as a cluster sees it -- a failed node's
// stranded pods replaced by a surge and the surge removed after recovery, max-surge, dry-run,
// a person's change adopted, a scale interrupted between its two writes, paused Deployments, opting
// out, idempotence across restarts and leader election between two operators.
#include <doctest/doctest.h>

#include "operator/annotations.hpp"
#include "test/operator_e2e/operator_fixture.hpp"

namespace rg::op::testing {
namespace {

constexpr std::string_view kDesired = "replica-guard.io/desired-replicas";

/// Waits until an Event `reason` about Deployment `name` is stored (the operator reports after
/// it writes).
bool reported(OperatorFixture& f, const std::string& name, std::string_view reason) {
  return f.run_until([&] { return f.has_event(name, reason); });
}

TEST_CASE("a failed node's stranded pods are replaced by a surge, removed after recovery") {
  OperatorFixture f;
  f.start_operator();
  guard_and_settle(f, "web", 6, {{"replica-guard.io/max-surge", "100%"}});

  const auto failed = f.fail_busiest_node("web");
  CHECK_MESSAGE(f.run_until([&] { return f.spec_replicas("web") == 6 + failed.pods; }),
                "spec.replicas is " << f.spec_replicas("web") << ", expected " << 6 + failed.pods);
  CHECK(reported(f, "web", "ScaledUpForStrandedPods"));
  // The surge serves: the replacements run on the healthy nodes.
  CHECK(f.run_until([&] { return f.ready_pods("web") >= 6; }));

  f.cluster.stop_kubelet(failed.node, false);
  CHECK_MESSAGE(f.run_until([&] { return f.spec_replicas("web") == 6; }),
                "spec.replicas stayed " << f.spec_replicas("web") << " after recovery");
  CHECK(reported(f, "web", "ScaledDownAfterRecovery"));
  CHECK(f.annotation("web", kDesired) == "6");
}

TEST_CASE("max-surge bounds the surge however many pods are stranded") {
  OperatorFixture f;
  f.start_operator();
  guard_and_settle(f, "web", 6, {{"replica-guard.io/max-surge", "1"}});

  const auto busiest = f.busiest_node("web");
  REQUIRE(busiest.pods >= 2);
  f.cluster.stop_kubelet(busiest.node, true);
  int highest = 0;
  CHECK(f.run_until([&] {
    highest = std::max(highest, f.spec_replicas("web"));
    return f.has_event("web", "ScaledUpForStrandedPods");
  }));
  // Give the operator every chance to overshoot: wait until the replacement is Ready too.
  CHECK(f.run_until([&] {
    highest = std::max(highest, f.spec_replicas("web"));
    return f.ready_pods("web") == 6 - busiest.pods + 1;
  }));
  CHECK(highest == 7);
  CHECK(f.spec_replicas("web") == 7);
}

TEST_CASE("dry-run computes and reports, and never writes") {
  OperatorFixture f;
  Options options = e2e_options();
  options.dry_run = true;
  f.start_operator(options);
  f.create_guarded_deployment("web", 6, {{"replica-guard.io/max-surge", "100%"}});
  REQUIRE(f.run_until([&] { return f.ready_pods("web") == 6; }));

  f.fail_busiest_node("web");
  bool wrote = false;
  CHECK(f.run_until([&] {
    wrote = wrote || f.spec_replicas("web") != 6;
    return f.has_event("web", "ScaledUpForStrandedPods");
  }));
  CHECK_FALSE(wrote);
  CHECK(f.spec_replicas("web") == 6);
  CHECK_FALSE(f.has_annotation("web", kDesired));
}

TEST_CASE("a person's change of spec.replicas is adopted as the new desired count") {
  OperatorFixture f;
  f.start_operator();
  guard_and_settle(f, "web", 3);

  f.cluster.edit_deployment("web", [](boost::json::object& spec) { spec["replicas"] = 5; });
  CHECK_MESSAGE(f.run_until([&] { return f.annotation("web", kDesired) == "5"; }),
                "desired annotation is \"" << f.annotation("web", kDesired) << "\"");
  CHECK(reported(f, "web", "DesiredReplicasAdopted"));
  CHECK(f.spec_replicas("web") == 5);
}

constexpr std::string_view kApplied = "replica-guard.io/applied-replicas";

// Sets spec.replicas through the scale subresource as `manager` would (kubectl scale, or the
// operator itself).
void scale_as(OperatorFixture& f, const std::string& name, int replicas, std::string_view manager) {
  f.cluster.registry.update(f.cluster.type("apps", "deployments"), "default", name, "scale",
                            [&](boost::json::object view) {
                              view["spec"].as_object()["replicas"] = replicas;
                              view["metadata"].as_object().erase("resourceVersion");
                              return view;
                            },
                            {std::string(manager)});
}

TEST_CASE("a person's kubectl scale after the operator's surge is adopted, not undone") {
  OperatorFixture f;
  f.start_operator();
  guard_and_settle(f, "web", 6, {{"replica-guard.io/max-surge", "100%"}});
  const auto failed = f.fail_busiest_node("web");
  REQUIRE(f.run_until([&] {
    return f.spec_replicas("web") == 6 + failed.pods &&
           f.annotation("web", kApplied) == std::to_string(6 + failed.pods);
  }));
  scale_as(f, "web", 10, "kubectl");
  CHECK_MESSAGE(f.run_until([&] { return f.annotation("web", kDesired) == "10"; }),
                "desired annotation is \"" << f.annotation("web", kDesired) << "\"");
  CHECK(reported(f, "web", "DesiredReplicasAdopted"));
  // The node is still down: the surge now rides on the person's count.
  CHECK_MESSAGE(f.run_until([&] { return f.spec_replicas("web") == 10 + failed.pods; }),
                "spec.replicas " << f.spec_replicas("web") << ", expected " << 10 + failed.pods);
}

// The operator writes a scale as two writes: the scale subresource, then (in the reconcile its
// echo brings) applied-replicas recording the count. These tests stop the operator, leave the
// cluster as a crash between the two writes would -- spec.replicas set through the scale
// subresource by the operator's field manager, applied-replicas still the old count -- and start
// a fresh operator without any memory of it: managedFields tell it the count is its own.
TEST_CASE("a scale-up interrupted before its record is recorded by the next operator") {
  OperatorFixture f;
  auto& first = f.start_operator();
  guard_and_settle(f, "web", 6, {{"replica-guard.io/max-surge", "100%"}});
  f.stop_operator(first);

  const auto failed = f.fail_busiest_node("web");
  scale_as(f, "web", 6 + failed.pods, kFieldManager);  // ... and the operator died

  f.start_operator();
  CHECK_MESSAGE(
      f.run_until([&] { return f.annotation("web", kApplied) == std::to_string(6 + failed.pods); }),
      "applied-replicas \"" << f.annotation("web", kApplied) << "\", expected " << 6 + failed.pods);
  CHECK(f.spec_replicas("web") == 6 + failed.pods);
  CHECK(f.annotation("web", kDesired) == "6");
  CHECK_FALSE(f.has_event("web", "DesiredReplicasAdopted"));
}

TEST_CASE("a surge interrupted before its record is not locked in once unneeded") {
  OperatorFixture f;
  auto& first = f.start_operator();
  guard_and_settle(f, "web", 6);
  f.stop_operator(first);
  scale_as(f, "web", 8, kFieldManager);  // a surge the node's recovery made unneeded

  f.start_operator();
  CHECK_MESSAGE(f.run_until([&] {
    return f.spec_replicas("web") == 6 && f.annotation("web", kApplied) == "6";
  }),
                "spec.replicas stayed " << f.spec_replicas("web"));
  CHECK(reported(f, "web", "ScaledDownAfterRecovery"));
  CHECK(f.annotation("web", kDesired) == "6");
  CHECK_FALSE(f.has_event("web", "DesiredReplicasAdopted"));
}

TEST_CASE("paused Deployments are left alone while others surge") {
  OperatorFixture f(2);
  f.start_operator();
  guard_and_settle(f, "web", 4, {{"replica-guard.io/max-surge", "100%"}});
  guard_and_settle(f, "held", 4, {{"replica-guard.io/max-surge", "100%"}});
  f.cluster.edit_deployment("held", [](boost::json::object& spec) { spec["paused"] = true; });

  // Two nodes: whichever fails strands pods of both Deployments.
  f.fail_busiest_node("held");
  CHECK(f.run_until([&] { return f.spec_replicas("web") > 4; }));
  CHECK(f.spec_replicas("held") == 4);
  CHECK_FALSE(f.has_event("held", "ScaledUpForStrandedPods"));
}

TEST_CASE("a Deployment an HPA scales is left to it, and guarded again once the HPA is gone") {
  OperatorFixture f(2);
  f.start_operator();
  guard_and_settle(f, "web", 4, {{"replica-guard.io/max-surge", "100%"}});
  guard_and_settle(f, "scaled", 4, {{"replica-guard.io/max-surge", "100%"}});
  f.create_hpa("scaled", "scaled");
  CHECK(reported(f, "scaled", "HorizontalPodAutoscalerPresent"));

  // The autoscaler scales up (kube-sim runs none: the test does its write). Not adopted: the
  // replicas are the HPA's, and the operator writes nothing at all.
  f.cluster.edit_deployment("scaled", [](boost::json::object& spec) { spec["replicas"] = 5; });
  REQUIRE(f.run_until([&] { return f.ready_pods("scaled") == 5; }));

  // Two nodes: whichever fails strands pods of both Deployments.
  f.fail_busiest_node("scaled");
  bool wrote = false;
  const auto untouched = [&] {
    return f.spec_replicas("scaled") == 5 && f.annotation("scaled", kDesired) == "4" &&
           f.annotation("scaled", "replica-guard.io/applied-replicas") == "4";
  };
  // "web" surging shows the operator saw the failure; "scaled" keeps what the HPA set.
  CHECK(f.run_until([&] {
    wrote = wrote || !untouched();
    return f.spec_replicas("web") > 4 && f.ready_pods("web") >= 4;
  }));
  CHECK_FALSE(wrote);
  CHECK(untouched());
  CHECK_FALSE(f.has_event("scaled", "ScaledUpForStrandedPods"));
  CHECK_FALSE(f.has_event("scaled", "DesiredReplicasAdopted"));
  CHECK(f.event_count("scaled", "HorizontalPodAutoscalerPresent") == 1);

  // The HPA deleted: its count becomes the desired one, and the stranded pods are surged for.
  f.delete_hpa("scaled");
  CHECK(reported(f, "scaled", "HorizontalPodAutoscalerGone"));
  CHECK_MESSAGE(f.run_until([&] { return f.spec_replicas("scaled") > 5; }),
                "spec.replicas " << f.spec_replicas("scaled"));
  CHECK(f.annotation("scaled", kDesired) == "5");
  CHECK(reported(f, "scaled", "DesiredReplicasAdopted"));
  CHECK(reported(f, "scaled", "ScaledUpForStrandedPods"));
}

TEST_CASE("with --detect-hpa=false HPAs are not watched, and their Deployments are guarded") {
  OperatorFixture f;
  Options options = e2e_options();
  options.detect_hpa = false;
  f.start_operator(options);
  guard_and_settle(f, "web", 6, {{"replica-guard.io/max-surge", "100%"}});
  f.create_hpa("web", "web");
  const auto failed = f.fail_busiest_node("web");
  CHECK(f.run_until([&] { return f.spec_replicas("web") == 6 + failed.pods; }));
  CHECK_FALSE(f.has_event("web", "HorizontalPodAutoscalerPresent"));
}

TEST_CASE("several --namespace values: each is guarded through its own informers, others never") {
  OperatorFixture f(2);
  // Created before the operator starts, so it would be the first it saw if it watched "other".
  f.create_guarded_deployment_in("other", "other-web", 2);
  Options options = e2e_options();
  options.namespaces = {"default", "shop"};
  // The cache consistency checker too: its LISTs stay within each informer's namespace.
  options.cache_consistency_check_period = "100ms";
  f.start_operator(options);
  guard_and_settle(f, "web", 4, {{"replica-guard.io/max-surge", "100%"}});
  f.create_guarded_deployment_in("shop", "shop-web", 4);
  const auto shop_replicas = [&] {
    return f.deployment_in("shop", "shop-web").at("spec").at("replicas").to_number<int>();
  };
  const auto shop_desired = [&] {
    const auto d = f.deployment_in("shop", "shop-web");
    const auto& annotations = d.at("metadata").at("annotations").as_object();
    const auto* value = annotations.if_contains(kDesired);
    return value ? std::string(value->as_string()) : std::string();
  };
  const auto ready_in_shop = [&] {
    int ready = 0;
    for (const auto& pod : f.cluster.list("", "pods", "shop"))
      ready += sim::testing::condition_status(pod, "Ready") == "True" ? 1 : 0;
    return ready;
  };
  REQUIRE(f.run_until([&] { return shop_desired() == "4" && ready_in_shop() == 4; }));

  // Whichever node fails holds pods of both (two nodes, four pods each, spread by the scheduler).
  const auto busiest = f.busiest_node("web");
  int stranded_in_shop = 0;
  for (const auto& pod : f.cluster.list("", "pods", "shop"))
    stranded_in_shop += pod.at("spec").as_object().if_contains("nodeName") &&
                                pod.at("spec").at("nodeName").as_string() == busiest.node
                            ? 1
                            : 0;
  f.cluster.stop_kubelet(busiest.node, true);
  CHECK(f.run_until([&] { return f.spec_replicas("web") == 4 + busiest.pods; }));
  CHECK(f.run_until([&] { return shop_replicas() == 4 + stranded_in_shop; }));
  const auto other = f.deployment_in("other", "other-web");
  CHECK_FALSE(other.at("metadata").as_object().at("annotations").as_object().contains(kDesired));
}

TEST_CASE("opting out restores the desired replicas and removes the operator's annotations") {
  OperatorFixture f;
  f.start_operator();
  guard_and_settle(f, "web", 6, {{"replica-guard.io/max-surge", "100%"}});
  const auto failed = f.fail_busiest_node("web");
  REQUIRE(f.run_until([&] { return f.spec_replicas("web") == 6 + failed.pods; }));

  f.cluster.annotate_deployment("web", "replica-guard.io/enabled", std::nullopt);
  CHECK_MESSAGE(f.run_until([&] {
    return f.spec_replicas("web") == 6 && !f.has_annotation("web", kDesired);
  }),
                "spec.replicas " << f.spec_replicas("web") << ", desired annotation \""
                                 << f.annotation("web", kDesired) << "\"");
  CHECK(reported(f, "web", "OptedOut"));
}

TEST_CASE("a restarted operator reconciles everything again and changes nothing") {
  OperatorFixture f;
  auto& first = f.start_operator();
  guard_and_settle(f, "web", 3);
  const auto version = [&] {
    return std::string(f.cluster.get("apps", "deployments", "default", "web")
                           .at("metadata")
                           .as_object()
                           .at("resourceVersion")
                           .as_string());
  };
  // Let the deployment controller finish writing status before taking the version.
  REQUIRE(f.run_until([&] {
    const auto d = f.cluster.get("apps", "deployments", "default", "web");
    return sim::testing::status_int(d, "availableReplicas") == 3;
  }));
  const std::string before = version();
  f.stop_operator(first);

  f.start_operator();
  // A Deployment created after the restart is recorded only once the operator has synced and
  // worked through its queue, which holds "web" first.
  guard_and_settle(f, "marker", 1);
  CHECK(version() == before);
}

TEST_CASE("with leader election exactly one operator writes, and the standby takes over") {
  OperatorFixture f;
  const Options options = with_leader_election(e2e_options());
  auto& first = f.start_operator(options);
  auto& second = f.start_operator(options);
  const auto holder = [&] { return f.leader(); };
  REQUIRE(f.run_until([&] { return !holder().empty(); }));
  const std::string leader = holder();
  guard_and_settle(f, "web", 3);
  // Exactly one writer: the standby neither writes nor reports, so the recording was reported
  // once.
  REQUIRE(reported(f, "web", "DesiredReplicasRecorded"));
  CHECK(f.event_count("web", "DesiredReplicasRecorded") == 1);

  // Whichever leads steps down on shutdown and releases the lease; the other takes over.
  auto& leading = first.manager->identity() == leader ? first : second;
  f.stop_operator(leading);
  CHECK(f.run_until([&] { return !holder().empty() && holder() != leader; }));
  f.cluster.edit_deployment("web", [](boost::json::object& spec) { spec["replicas"] = 4; });
  CHECK(f.run_until([&] { return f.annotation("web", kDesired) == "4"; }));
}

}  // namespace
}  // namespace rg::op::testing
