// The shared informers and their indexes (see caches.hpp).
#include "sim/cluster/caches.hpp"

#include <boost/asio/experimental/awaitable_operators.hpp>

namespace rg::sim::cluster {

Caches::Caches(Store& store, const ResourceTypes& types)
    : pods(store, types.pods),
      nodes(store, types.nodes),
      leases(store, types.leases),
      replica_sets(store, types.replica_sets),
      deployments(store, types.deployments) {
  pods_by_node = pods.add_index([](const PodView& pod) { return pod.node_name; });
  unscheduled_pods = pods.add_index([](const PodView& pod) {
    return pod.node_name.empty() && pod.active() ? std::string("pending") : std::string();
  });
  pods_by_controller = pods.add_index(
      [](const PodView& pod) { return pod.controller ? pod.controller->uid : std::string(); });
  replica_sets_by_controller = replica_sets.add_index(
      [](const ReplicaSetView& rs) { return rs.controller ? rs.controller->uid : std::string(); });
}

void Caches::start() {
  nodes.start();
  leases.start();
  deployments.start();
  replica_sets.start();
  pods.start();
}

boost::asio::awaitable<void> Caches::run() {
  using namespace boost::asio::experimental::awaitable_operators;
  co_await (pods.run() && nodes.run() && leases.run() && replica_sets.run() && deployments.run());
}

}  // namespace rg::sim::cluster
