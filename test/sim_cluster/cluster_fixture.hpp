// ClusterFixture: a Store with the default namespaces (its own, or a running kube-sim Server's),
// a Registry to write objects the way kubectl does, and a simulated Cluster with timings scaled
// to milliseconds, all on one io_context driven by the test thread (run_until polls a condition
// between handlers, with a generous deadline -- no sleeps).
#pragma once

#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json/object.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/cluster/cluster.hpp"
#include "sim/faults.hpp"
#include "sim/object_store.hpp"
#include "sim/registry.hpp"
#include "sim/resource_table.hpp"

namespace rg::sim::testing {

/// Kubernetes' defaults scaled by 1/1000: grace 50 ms, heartbeat 10 ms, eviction 300 ms.
ClusterOptions fast_options();

class ClusterFixture {
 public:
  /// A cluster on a Store of its own, whose simulated components see the fixture's faults().
  explicit ClusterFixture(ClusterOptions options = fast_options(), std::size_t nodes = 3);
  /// A cluster on someone else's bootstrapped Store and Registry (e.g. a kube-sim Server's;
  /// call cluster.use_faults(server.faults()) for its outages and partitions).
  ClusterFixture(Store& store, Registry& registry, ClusterOptions options = fast_options(),
                 std::size_t nodes = 3);
  ~ClusterFixture();  // cancels run() and checks it ended

  /// The fault injection the cluster's components see (own-Store fixtures only): outages and
  /// partitions without a Server.
  Faults& faults();

  /// Runs the cluster until `done()` holds (true) or `limit` passes (false).
  bool run_until(const std::function<bool()>& done,
                 std::chrono::milliseconds limit = std::chrono::seconds(20));

  const ResourceType& type(std::string_view group, std::string_view resource) const;
  /// The parsed object, or an empty object when absent.
  boost::json::object get(std::string_view group, std::string_view resource,
                          std::string_view namespace_, std::string_view name) const;
  std::vector<boost::json::object> list(std::string_view group, std::string_view resource,
                                        std::string_view namespace_ = "") const;
  /// Pods whose label app=`app`, live (not terminating) only.
  std::vector<boost::json::object> pods_of(const std::string& app) const;

  /// Creates a Deployment "<name>" (label app=<name>, one container) through the registry.
  void create_deployment(const std::string& name, int replicas,
                         const std::string& image = "registry.example/web:1.0");
  /// Read-modify-write of a Deployment's spec through the registry.
  void edit_deployment(const std::string& name,
                       const std::function<void(boost::json::object& spec)>& edit);
  /// Sets or removes sim.replica-guard.io/kubelet=stopped on a node.
  void stop_kubelet(const std::string& node, bool stopped);
  /// Sets (or, with nullopt, removes) a label on a node through the registry, as kubectl label.
  void label_node(const std::string& node, const std::string& key,
                  const std::optional<std::string>& value);

  /// Sets the status of a condition through the /status subresource, as another writer would
  /// (e.g. Ready=False on a pod or node).
  void set_condition_status(std::string_view resource, std::string_view namespace_,
                            const std::string& name, std::string_view type,
                            std::string_view status);
  /// True when `app` has `replicas` live pods, all Ready.
  bool all_ready(const std::string& app, std::size_t replicas) const;
  /// True when every node is Ready: seeded nodes are not until their kubelet's first status.
  bool nodes_ready() const;

  /// Sets or removes an annotation on a Deployment.
  void annotate_deployment(const std::string& name, const std::string& key,
                           const std::optional<std::string>& value);

 private:
  std::unique_ptr<Store> owned_store_;
  std::unique_ptr<Registry> owned_registry_;
  std::unique_ptr<Faults> owned_faults_;  // outlives the cluster, which reads it until it stops

 public:
  boost::asio::io_context io;
  Store& store;
  Registry& registry;
  Cluster cluster;

 private:
  void start(std::size_t nodes);

  boost::asio::cancellation_signal stop_;
  bool finished_ = false;
};

std::string condition_status(const boost::json::object& object, std::string_view type);
/// A pod's spec.nodeName ("" when unscheduled).
std::string node_of(const boost::json::object& pod);
/// The spec.renewTime of `node`'s Lease ("" before its kubelet first renewed it).
std::string renew_time(ClusterFixture& f, const std::string& node);
std::string condition_field(const boost::json::object& object, std::string_view type,
                            std::string_view field);
std::int64_t status_int(const boost::json::object& object, std::string_view field);

}  // namespace rg::sim::testing
