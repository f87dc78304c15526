// The detector fed by the informers, and its sweep (see node_lease_monitor.hpp).
#include "operator/node_lease_monitor.hpp"

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <iterator>

#include "operator/operator_metrics.hpp"

namespace rg::op {

namespace {

const client::NodeCondition* ready_condition(const client::Node& node) {
  for (const auto& condition : node.status.conditions) {
    if (condition.type == "Ready") return &condition;
  }
  return nullptr;
}

class RelistObserver final : public informer::ReflectorObserver {
 public:
  RelistObserver(std::shared_ptr<informer::ReflectorObserver> inner, NodeLeaseMonitor& monitor)
      : inner_(inner ? std::move(inner) : std::make_shared<informer::ReflectorObserver>()),
        monitor_(monitor) {}
  void on_list() override { inner_->on_list(); }
  void on_relist(std::string_view reason) override { inner_->on_relist(reason); }
  void on_watch() override { inner_->on_watch(); }
  void on_event(client::WatchEventType type) override { inner_->on_event(type); }
  void on_items(std::size_t count) override { inner_->on_items(count); }
  void on_list_synced(std::size_t count) override {
    inner_->on_list_synced(count);
    monitor_.observing_from_now();
  }
  void on_health(informer::reflector::Health health) override { inner_->on_health(health); }
  void on_consistency_check(std::size_t inconsistencies) override {
    inner_->on_consistency_check(inconsistencies);
  }

 private:
  std::shared_ptr<informer::ReflectorObserver> inner_;
  NodeLeaseMonitor& monitor_;
};

}  // namespace

std::shared_ptr<informer::ReflectorObserver> restart_on_relist(
    std::shared_ptr<informer::ReflectorObserver> inner, NodeLeaseMonitor& monitor) {
  return std::make_shared<RelistObserver>(std::move(inner), monitor);
}

SuspectNodeConfig suspect_node_config(std::chrono::milliseconds grace) {
  return {.grace = grace, .liveness_window = grace / 2};
}

NodeLeaseMonitor::NodeLeaseMonitor(SuspectNodeConfig config, OperatorMetrics* metrics,
                                   std::function<Clock::time_point()> clock)
    : clock_(std::move(clock)), metrics_(metrics), detector_(config) {}

void NodeLeaseMonitor::lease_seen(const client::Lease& lease) {
  std::optional<std::chrono::milliseconds> gap;
  {
    std::lock_guard lock(mutex_);
    gap = detector_.lease_seen(lease.metadata.name, lease.spec.renew_time.value_or(""), clock_());
  }
  if (gap && metrics_) metrics_->lease_renewal_gap(*gap);
}

void NodeLeaseMonitor::lease_deleted(std::string_view node) {
  std::lock_guard lock(mutex_);
  detector_.lease_deleted(node, clock_());
}

void NodeLeaseMonitor::node_seen(const client::Node& node) {
  const auto* ready = ready_condition(node);
  std::lock_guard lock(mutex_);
  detector_.node_seen(node.metadata.name, ready && ready->status == "True",
                      ready ? std::string_view(ready->last_heartbeat_time) : std::string_view(),
                      ready ? std::string_view(ready->status) : std::string_view("Unknown"),
                      clock_());
}

void NodeLeaseMonitor::node_deleted(std::string_view node) {
  std::lock_guard lock(mutex_);
  detector_.node_deleted(node, clock_());
}

void NodeLeaseMonitor::proof_of_life(std::string_view node) {
  std::lock_guard lock(mutex_);
  detector_.proof_of_life(node, clock_());
}

void NodeLeaseMonitor::observing_from_now() {
  std::lock_guard lock(mutex_);
  detector_.observing_from(clock_());
}

NodeHealth NodeLeaseMonitor::health(std::string_view node) {
  std::lock_guard lock(mutex_);
  return detector_.health(node, clock_());
}

std::vector<std::string> NodeLeaseMonitor::suspects() {
  std::lock_guard lock(mutex_);
  return suspects_;
}

std::vector<std::string> NodeLeaseMonitor::suspects_now() {
  std::lock_guard lock(mutex_);
  return detector_.suspects(clock_());
}

std::chrono::milliseconds NodeLeaseMonitor::sweep_period() const {
  return std::max(std::chrono::milliseconds(5), detector_.config().grace / 24);
}

std::vector<std::string> NodeLeaseMonitor::sweep() {
  std::vector<std::string> changed;
  std::size_t count = 0;
  {
    std::lock_guard lock(mutex_);
    std::vector<std::string> now = detector_.suspects(clock_());
    std::set_symmetric_difference(suspects_.begin(), suspects_.end(), now.begin(), now.end(),
                                  std::back_inserter(changed));
    suspects_ = std::move(now);
    count = suspects_.size();
  }
  if (metrics_) metrics_->suspect_nodes(count);
  return changed;
}

boost::asio::awaitable<void> NodeLeaseMonitor::run(
    std::function<boost::asio::awaitable<void>(std::vector<std::string> changed)> after_sweep) {
  boost::asio::steady_timer timer(co_await boost::asio::this_coro::executor);
  for (;;) {
    std::vector<std::string> changed = sweep();
    co_await after_sweep(std::move(changed));
    timer.expires_after(sweep_period());
    co_await timer.async_wait(boost::asio::use_awaitable);
  }
}

}  // namespace rg::op
