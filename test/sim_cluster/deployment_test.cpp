// The deployment and ReplicaSet controllers, the scheduler and the kubelets together: a
// Deployment becomes a ReplicaSet and Ready pods; scaling; pausing; a rolling update.
#include <doctest/doctest.h>

#include <boost/json.hpp>

#include <set>

#include "cluster_fixture.hpp"
#include "sim/cluster/pod_template_hash.hpp"

namespace json = boost::json;
using rg::sim::testing::ClusterFixture;
using rg::sim::testing::condition_field;
using rg::sim::testing::condition_status;
using rg::sim::testing::status_int;

namespace {

// Rolled out as kubectl rollout status and kstatus see it.
bool rolled_out(ClusterFixture& f, const std::string& name, std::int64_t replicas) {
  auto d = f.get("apps", "deployments", "default", name);
  if (d.empty()) return false;
  const auto generation = d.at("metadata").as_object().at("generation").as_int64();
  return status_int(d, "observedGeneration") == generation &&
         status_int(d, "replicas") == replicas && status_int(d, "updatedReplicas") == replicas &&
         status_int(d, "readyReplicas") == replicas &&
         status_int(d, "availableReplicas") == replicas &&
         condition_field(d, "Progressing", "reason") == "NewReplicaSetAvailable" &&
         condition_status(d, "Available") == "True" &&
         static_cast<std::int64_t>(f.pods_of(name).size()) == replicas;
}

std::vector<json::object> replica_sets_of(ClusterFixture& f, const std::string& name) {
  std::vector<json::object> out;
  for (auto& rs : f.list("apps", "replicasets", "default"))
    if (rs.at("metadata").as_object().at("labels").as_object().at("app").as_string() == name)
      out.push_back(std::move(rs));
  return out;
}

}  // namespace

TEST_CASE("a Deployment gets a ReplicaSet and Ready pods spread over the nodes") {
  ClusterFixture f;
  f.create_deployment("web", 3);
  REQUIRE(f.run_until([&] { return rolled_out(f, "web", 3); }));

  auto deployment = f.get("apps", "deployments", "default", "web");
  CHECK(condition_field(deployment, "Available", "reason") == "MinimumReplicasAvailable");
  CHECK(status_int(deployment, "unavailableReplicas") == 0);
  const auto& template_ = deployment.at("spec").at("template").as_object();
  const std::string hash = rg::sim::cluster::pod_template_hash(template_);
  CHECK(deployment.at("metadata").at("annotations").at("deployment.kubernetes.io/revision") == "1");

  auto replica_sets = replica_sets_of(f, "web");
  REQUIRE(replica_sets.size() == 1);
  const auto& rs = replica_sets.front();
  CHECK(rs.at("metadata").at("name").as_string() == "web-" + hash);
  CHECK(rs.at("spec").at("selector").at("matchLabels").at("pod-template-hash").as_string() == hash);
  const auto& rs_owner = rs.at("metadata").at("ownerReferences").as_array().at(0).as_object();
  CHECK(rs_owner.at("kind") == "Deployment");
  CHECK(rs_owner.at("uid") == deployment.at("metadata").at("uid"));
  CHECK(rs_owner.at("controller") == true);
  CHECK(rs_owner.at("blockOwnerDeletion") == true);
  CHECK(status_int(rs, "replicas") == 3);
  CHECK(status_int(rs, "readyReplicas") == 3);

  std::set<std::string> nodes;
  for (const auto& pod : f.pods_of("web")) {
    const auto& metadata = pod.at("metadata").as_object();
    CHECK(metadata.at("labels").at("pod-template-hash").as_string() == hash);
    CHECK(metadata.at("generateName").as_string() == "web-" + hash + "-");
    const auto& owner = metadata.at("ownerReferences").as_array().at(0).as_object();
    CHECK(owner.at("kind") == "ReplicaSet");
    CHECK(owner.at("uid") == rs.at("metadata").at("uid"));
    CHECK(owner.at("controller") == true);
    nodes.insert(std::string(pod.at("spec").at("nodeName").as_string()));
    CHECK(pod.at("spec").at("tolerations").as_array().size() == 2);
    CHECK(pod.at("status").at("phase") == "Running");
    for (auto type : {"PodScheduled", "Initialized", "ContainersReady", "Ready"})
      CHECK_MESSAGE(condition_status(pod, type) == "True", type);
    CHECK(!pod.at("status").at("podIP").as_string().empty());
    CHECK(!pod.at("status").at("hostIP").as_string().empty());
    CHECK(pod.at("status").at("containerStatuses").at(0).at("ready") == true);
  }
  CHECK(nodes.size() == 3);  // spread: one pod per node

  // Every node heartbeats through its Lease and stays Ready.
  REQUIRE(f.run_until([&] { return f.list("coordination.k8s.io", "leases").size() == 3; }));
  for (const auto& node : f.list("", "nodes")) {
    CHECK(condition_status(node, "Ready") == "True");
    CHECK(condition_field(node, "Ready", "reason") == "KubeletReady");
  }
}

TEST_CASE("scaling a Deployment up and down") {
  ClusterFixture f;
  f.create_deployment("web", 2);
  REQUIRE(f.run_until([&] { return rolled_out(f, "web", 2); }));
  f.edit_deployment("web", [](json::object& spec) { spec["replicas"] = 5; });
  REQUIRE(f.run_until([&] { return rolled_out(f, "web", 5); }));
  f.edit_deployment("web", [](json::object& spec) { spec["replicas"] = 1; });
  REQUIRE(f.run_until([&] { return rolled_out(f, "web", 1); }));
  CHECK(replica_sets_of(f, "web").size() == 1);
  f.edit_deployment("web", [](json::object& spec) { spec["replicas"] = 0; });
  REQUIRE(f.run_until([&] {
    return f.pods_of("web").empty() &&
           status_int(f.get("apps", "deployments", "default", "web"), "replicas") == 0;
  }));
}

TEST_CASE("a template change rolls out a new ReplicaSet; a paused Deployment only scales") {
  ClusterFixture f;
  f.create_deployment("web", 4);
  REQUIRE(f.run_until([&] { return rolled_out(f, "web", 4); }));

  f.edit_deployment("web", [](json::object& spec) { spec["paused"] = true; });
  f.edit_deployment("web", [](json::object& spec) {
    spec["template"].at("spec").at("containers").at(0).as_object()["image"] = "web:2.0";
    spec["replicas"] = 3;
  });
  REQUIRE(f.run_until([&] {
    auto d = f.get("apps", "deployments", "default", "web");
    return condition_field(d, "Progressing", "reason") == "DeploymentPaused" &&
           f.pods_of("web").size() == 3;
  }));
  CHECK(replica_sets_of(f, "web").size() == 1);  // no rollout while paused

  f.edit_deployment("web", [](json::object& spec) { spec["paused"] = false; });
  REQUIRE(f.run_until([&] {
    if (!rolled_out(f, "web", 3)) return false;
    for (const auto& pod : f.pods_of("web"))
      if (pod.at("spec").at("containers").at(0).at("image") != "web:2.0") return false;
    return true;
  }));
  auto replica_sets = replica_sets_of(f, "web");
  REQUIRE(replica_sets.size() == 2);
  int scaled_to_zero = 0;
  for (const auto& rs : replica_sets)
    if (rs.at("spec").at("replicas") == 0) ++scaled_to_zero;
  CHECK(scaled_to_zero == 1);
  auto d = f.get("apps", "deployments", "default", "web");
  CHECK(d.at("metadata").at("annotations").at("deployment.kubernetes.io/revision") == "2");
}

TEST_CASE("a rolling update stays within maxSurge and maxUnavailable") {
  ClusterFixture f;
  f.create_deployment("web", 4);  // 25%: one surge pod, one unavailable pod
  REQUIRE(f.run_until([&] { return rolled_out(f, "web", 4); }));
  f.edit_deployment("web", [](json::object& spec) {
    spec["template"].at("spec").at("containers").at(0).as_object()["image"] = "web:2.0";
  });
  // maxSurge bounds the ReplicaSets' replicas, not the live pods of a moment: an old pod may
  // outlive its ReplicaSet's scale-down by a sync while the new ReplicaSet's pod is created.
  std::int64_t most_replicas = 0;
  std::size_t fewest_ready = 4;
  REQUIRE(f.run_until([&] {
    std::int64_t replicas = 0;
    for (const auto& rs : replica_sets_of(f, "web"))
      replicas += rs.at("spec").at("replicas").to_number<std::int64_t>();
    auto pods = f.pods_of("web");
    std::size_t ready = 0;
    bool all_new = true;
    for (const auto& pod : pods) {
      if (condition_status(pod, "Ready") == "True") ++ready;
      all_new = all_new && pod.at("spec").at("containers").at(0).at("image") == "web:2.0";
    }
    most_replicas = std::max(most_replicas, replicas);
    fewest_ready = std::min(fewest_ready, ready);
    return all_new && rolled_out(f, "web", 4);
  }));
  CHECK(most_replicas == 5);  // the surge was used, and no more
  CHECK(fewest_ready >= 3);
}

TEST_CASE("controllers survive closed watches and a compacted history") {
  ClusterFixture f;
  f.create_deployment("web", 2);
  REQUIRE(f.run_until([&] { return rolled_out(f, "web", 2); }));
  f.store.close_all_watchers();  // informers resume from their last resourceVersion
  f.edit_deployment("web", [](json::object& spec) { spec["replicas"] = 3; });
  REQUIRE(f.run_until([&] { return rolled_out(f, "web", 3); }));
  f.edit_deployment("web", [](json::object& spec) { spec["replicas"] = 4; });
  f.store.compact();  // resuming is impossible now: informers relist
  f.store.close_all_watchers();
  REQUIRE(f.run_until([&] { return rolled_out(f, "web", 4); }));
}
