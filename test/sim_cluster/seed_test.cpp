// Seeding: nodes and already-running deployments, consistent enough that the controllers
// have nothing to do.
#include <doctest/doctest.h>

#include <boost/json.hpp>

#include <chrono>
#include <map>

#include "cluster_fixture.hpp"
#include "sim/cluster/caches.hpp"
#include "sim/cluster/seed.hpp"

namespace json = boost::json;
using rg::sim::testing::ClusterFixture;
using rg::sim::testing::condition_field;
using rg::sim::testing::condition_status;
using rg::sim::testing::status_int;

TEST_CASE("seeding 10k pods is consistent and the controllers leave it alone") {
  // Not about node health: a loaded machine must not let a node miss its 50 ms grace here.
  auto options = rg::sim::testing::fast_options();
  options.node_monitor_grace_period = std::chrono::seconds(60);
  ClusterFixture f(options);
  const auto started = std::chrono::steady_clock::now();
  f.cluster.seed_deployments({.deployments = 100, .pods_per_deployment = 100});
  MESSAGE("seeded 100 deployments x 100 pods in "
          << std::chrono::duration_cast<std::chrono::milliseconds>(
                 std::chrono::steady_clock::now() - started)
                 .count()
          << " ms");
  const auto& types = rg::sim::ResourceTypes::builtin();
  REQUIRE(f.store.list(types.pods, "default")->items.size() == 10000);
  REQUIRE(f.store.list(types.replica_sets, "default")->items.size() == 100);

  // Every pod is owned by its ReplicaSet, Ready, on a node; pods spread evenly.
  std::map<std::string, std::string> rs_uid_by_name;
  for (const auto& rs : f.list("apps", "replicasets", "default")) {
    rs_uid_by_name[std::string(rs.at("metadata").at("name").as_string())] =
        std::string(rs.at("metadata").at("uid").as_string());
    CHECK(status_int(rs, "readyReplicas") == 100);
  }
  std::map<std::string, int> per_node;
  const auto all_pods = f.store.list(types.pods, "default");
  for (const auto& item : all_pods->items) {
    auto pod = item->parse();
    const auto& owner = pod.at("metadata").at("ownerReferences").at(0).as_object();
    REQUIRE(rs_uid_by_name.count(std::string(owner.at("name").as_string())) == 1);
    CHECK(rs_uid_by_name[std::string(owner.at("name").as_string())] == owner.at("uid").as_string());
    CHECK(condition_status(pod, "Ready") == "True");
    ++per_node[std::string(pod.at("spec").at("nodeName").as_string())];
  }
  CHECK(per_node.size() == 3);
  for (const auto& [node, count] : per_node) CHECK(count >= 3333);

  // Running the cluster changes no pod and no ReplicaSet: the seeded state is what the
  // controllers would have made.
  auto pods = f.store.watch(types.pods, "", f.store.resource_version());
  auto replica_sets = f.store.watch(types.replica_sets, "", f.store.resource_version());
  REQUIRE(f.run_until([&] { return f.list("coordination.k8s.io", "leases").size() == 3; }));
  // Give the deployment controller every deployment's sync, then look.
  REQUIRE(f.run_until([&] {
    for (const auto& d : f.list("apps", "deployments", "default"))
      if (condition_field(d, "Progressing", "reason") != "NewReplicaSetAvailable") return false;
    return true;
  }));
  f.run_until([] { return false; }, std::chrono::milliseconds(200));
  CHECK(pods.watcher->take().empty());
  CHECK(replica_sets.watcher->take().empty());
  f.store.unwatch(types.pods, pods.watcher);
  f.store.unwatch(types.replica_sets, replica_sets.watcher);
}

TEST_CASE("seed_nodes skips existing names") {
  rg::sim::Store store;
  CHECK(rg::sim::seed_nodes(store, 2).size() == 2);
  CHECK(rg::sim::seed_nodes(store, 3) == std::vector<std::string>{"node-3"});
  auto node = store.get(rg::sim::ResourceTypes::builtin().nodes, "", "node-1")->parse();
  CHECK(node.at("status").at("nodeInfo").at("kubeletVersion") == "v1.35.0");
  CHECK(node.at("metadata").at("labels").at("kubernetes.io/hostname") == "node-1");
  CHECK(condition_status(node, "Ready") == "True");
}
