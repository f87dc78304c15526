// OperatorFixture: replica-guard end to end, in one process. kube-sim serves the Kubernetes API
// over HTTP on 127.0.0.1 (its own threads), the simulated cluster runs on its store with
// Kubernetes' timings scaled down, and Managers -- the operator exactly as main() runs it, from
// Options and a kubeconfig -- run on the test thread's io_context next to the cluster. Tests
// change the cluster as a person would and wait (generous deadlines, no sleeps) for the
// operator's effect on the API objects.
#pragma once

#include <boost/asio/cancellation_signal.hpp>

#include <exception>
#include <functional>
#include <list>
#include <memory>
#include <string>
#include <vector>

#include "operator/manager.hpp"
#include "operator/options.hpp"
#include "sim/server.hpp"
#include "test/sim_cluster/cluster_fixture.hpp"

namespace rg::op::testing {

/// Kubernetes' timings x0.01 (node grace 500 ms, heartbeats 100 ms), with an eviction timeout
/// long enough that stranded pods stay stranded while a test looks at them.
sim::ClusterOptions e2e_cluster_options();

/// Operator flags for tests: no HTTP servers, node grace 300 ms, scale-down delay 300 ms.
Options e2e_options();

/// For the actions on a suspect node: Kubernetes' timings x0.1 (Lease renewals every second, the
/// kubelet's pod status sync every second) with the node lifecycle controller slowed down (a
/// minute's grace, ten minutes to evict), so that what happens is the Lease signal's alone.
sim::ClusterOptions suspect_node_cluster_options();

/// e2e_options() with --node-lease-grace 2.4 s (24 s x0.1).
Options suspect_node_options();

/// `options` with leader election on the Lease default/replica-guard, at test timings (1 s lease,
/// 600 ms renew deadline, 100 ms retries).
Options with_leader_election(Options options);

class OperatorFixture {
 public:
  explicit OperatorFixture(std::size_t nodes = 3,
                           sim::ClusterOptions options = e2e_cluster_options(),
                           sim::ServerOptions server_options = {});
  ~OperatorFixture();  // stops every running operator and checks each ended cleanly

  /// A running Manager; stop() cancels it as SIGTERM does.
  struct Operator {
    std::unique_ptr<Manager> manager;
    boost::asio::cancellation_signal stop;
    bool finished = false;
    std::exception_ptr error;
  };
  Operator& start_operator(Options options = e2e_options());
  /// Cancels `op` and runs until its run() has returned; checks it returned without error.
  void stop_operator(Operator& op);

  /// Runs the cluster and the operators until `done()` holds; false after `limit`.
  bool run_until(const std::function<bool()>& done,
                 std::chrono::milliseconds limit = std::chrono::seconds(30));

  /// Creates Deployment `name` opted in (annotations added to replica-guard.io/enabled=true).
  void create_guarded_deployment(
      const std::string& name, int replicas,
      const std::vector<std::pair<std::string, std::string>>& annotations = {});
  /// Creates namespace `ns` and in it Deployment `name` (label app=`name`), opted in.
  void create_guarded_deployment_in(const std::string& ns, const std::string& name, int replicas);
  /// Deployment `ns`/`name` as stored (empty when absent).
  boost::json::object deployment_in(const std::string& ns, const std::string& name) const;

  /// Creates an autoscaling/v2 HorizontalPodAutoscaler `name` scaling Deployment `target`
  /// (kube-sim runs no autoscaler: the test scales as the HPA would).
  void create_hpa(const std::string& name, const std::string& target);
  void delete_hpa(const std::string& name);
  /// spec.replicas of Deployment `name` (-1 if it is gone).
  int spec_replicas(const std::string& name) const;
  std::string annotation(const std::string& name, std::string_view key) const;
  bool has_annotation(const std::string& name, std::string_view key) const;
  /// Ready, non-terminating pods of `app` on nodes whose kubelet runs.
  int ready_pods(const std::string& app) const;
  struct BusiestNode {
    std::string node;
    int pods = 0;
  };
  /// The node running the most pods of `app`, and how many.
  BusiestNode busiest_node(const std::string& app) const;
  /// Stops the kubelet of busiest_node(app) (REQUIREs that it runs a pod of `app`): the node
  /// fails, and its pods of `app` are stranded.
  BusiestNode fail_busiest_node(const std::string& app);
  /// How often Events with `reason` were reported for Deployment `name` (their counts summed).
  int event_count(const std::string& name, std::string_view reason) const;
  bool has_event(const std::string& name, std::string_view reason) const {
    return event_count(name, reason) > 0;
  }
  /// The message of an Event with `reason` about Deployment `name` ("" when there is none).
  std::string event_message(const std::string& name, std::string_view reason) const;
  /// The holder of the leader-election Lease default/replica-guard ("" when none).
  std::string leader() const;
  /// Whether the node's Ready condition is True.
  bool node_ready(const std::string& node) const;

  sim::Server server;
  sim::testing::ClusterFixture cluster;
  std::string kubeconfig;

 private:
  std::list<Operator> operators_;
};

/// Creates `name` opted in and waits until its replicas serve and the operator recorded them.
void guard_and_settle(OperatorFixture& f, const std::string& name, int replicas,
                      const std::vector<std::pair<std::string, std::string>>& annotations = {});

}  // namespace rg::op::testing
