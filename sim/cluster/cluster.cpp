// Cluster: wiring the caches and controllers together (see cluster.hpp).
#include "sim/cluster/cluster.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <stdexcept>

#include "sim/cluster/caches.hpp"
#include "sim/cluster/deployment_controller.hpp"
#include "sim/cluster/disruption_controller.hpp"
#include "sim/cluster/kubelet.hpp"
#include "sim/cluster/node_lifecycle_controller.hpp"
#include "sim/cluster/replica_set_controller.hpp"
#include "sim/cluster/scheduler.hpp"
#include "sim/cluster/taint_eviction_controller.hpp"

namespace rg::sim {

ClusterOptions ClusterOptions::scaled(double factor) const {
  ClusterOptions out = *this;
  auto scale = [factor](Duration& duration) {
    duration = Duration(static_cast<Duration::rep>(static_cast<double>(duration.count()) * factor));
  };
  for (auto* duration :
       {&out.node_lease_duration, &out.node_status_update_frequency,
        &out.node_status_report_frequency, &out.pod_status_sync_period, &out.lease_backoff_initial,
        &out.lease_backoff_max, &out.node_monitor_period, &out.node_monitor_grace_period,
        &out.leader_elect_renew_deadline, &out.pod_eviction_timeout, &out.pod_start_delay,
        &out.pod_termination_delay, &out.retry_delay, &out.event_series_finish})
    scale(*duration);
  out.node_eviction_rate /= factor;
  out.secondary_node_eviction_rate /= factor;
  return out;
}

struct Cluster::Impl {
  Store& store;
  ClusterOptions options;
  boost::asio::strand<boost::asio::any_io_executor> strand;
  KubeletControl kubelet_control{strand};
  std::atomic<Faults*> faults{nullptr};

  /// Throws std::out_of_range unless `node` is a stored Node.
  void require_node(const std::string& node) const {
    if (store.get(ResourceTypes::builtin().nodes, "", node) == nullptr)
      throw std::out_of_range("nodes \"" + node + "\" not found");
  }
  KubeletState with_label(KubeletState state) const {
    if (auto node = store.get(ResourceTypes::builtin().nodes, "", state.node)) {
      auto label = node->labels.find(cluster::kKubeletLabel);
      state.stopped_by_label =
          label != node->labels.end() && label->second == cluster::kKubeletStopped;
    }
    return state;
  }

  boost::asio::awaitable<void> run_all() {
    using namespace boost::asio::experimental::awaitable_operators;
    const auto& types = ResourceTypes::builtin();
    cluster::Caches caches(store, types);
    cluster::Context context{store, types, options, caches, strand, kubelet_control, faults};
    cluster::ReplicaSetController replica_sets(context);
    cluster::DeploymentController deployments(context);
    cluster::Scheduler scheduler(context);
    cluster::Kubelets kubelets(context);
    cluster::NodeLifecycleController node_lifecycle(context);
    cluster::TaintEvictionController taint_eviction(context);
    cluster::DisruptionController disruption(context);
    caches.start();
    co_await (caches.run() && replica_sets.run() && deployments.run() && scheduler.run() &&
              kubelets.run() && node_lifecycle.run() && taint_eviction.run() && disruption.run());
  }
};

Cluster::Cluster(Store& store, ClusterOptions options, const boost::asio::any_io_executor& executor)
    : impl_(new Impl{store, std::move(options), boost::asio::make_strand(executor)}) {}

Cluster::~Cluster() = default;

boost::asio::awaitable<void> Cluster::run() {
  co_await boost::asio::co_spawn(impl_->strand, impl_->run_all(), boost::asio::use_awaitable);
}

std::vector<std::string> Cluster::seed_nodes(std::size_t count) {
  return sim::seed_nodes(impl_->store, count, impl_->options.kubelet_version);
}

void Cluster::seed_deployments(const DeploymentSeed& seed) {
  sim::seed_deployments(impl_->store, seed);
}

const ClusterOptions& Cluster::options() const { return impl_->options; }

void Cluster::use_faults(Faults& faults) { impl_->faults.store(&faults); }

KubeletState Cluster::stop_kubelet(const std::string& node) {
  impl_->require_node(node);
  return impl_->with_label(impl_->kubelet_control.stop(node));
}

KubeletState Cluster::start_kubelet(const std::string& node) {
  impl_->require_node(node);
  return impl_->with_label(impl_->kubelet_control.start(node));
}

KubeletState Cluster::delay_kubelet(const std::string& node, std::chrono::milliseconds delay) {
  impl_->require_node(node);
  return impl_->with_label(impl_->kubelet_control.delay(node, delay));
}

std::vector<KubeletState> Cluster::kubelets() const {
  std::vector<KubeletState> out;
  const auto nodes = impl_->store.list(ResourceTypes::builtin().nodes, "");
  for (const auto& node : nodes->items)
    out.push_back(impl_->with_label(impl_->kubelet_control.state(node->name)));
  return out;
}

}  // namespace rg::sim
