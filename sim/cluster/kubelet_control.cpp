// KubeletControl (see kubelet_control.hpp).
#include "sim/cluster/kubelet_control.hpp"

#include <boost/asio/post.hpp>

namespace rg::sim {

Instant Instant::now() {
  return {std::chrono::system_clock::now(), std::chrono::steady_clock::now()};
}

KubeletControl::KubeletControl(boost::asio::any_io_executor strand) : strand_(std::move(strand)) {}

KubeletState KubeletControl::stop(const std::string& node) {
  KubeletState state;
  {
    std::lock_guard lock(mutex_);
    auto& entry = states_[node];
    entry.node = node;
    if (entry.alive) {
      entry.alive = false;
      entry.stopped_at = Instant::now();
    }
    state = entry;
  }
  announce(node);
  return state;
}

KubeletState KubeletControl::start(const std::string& node) {
  KubeletState state;
  {
    std::lock_guard lock(mutex_);
    auto& entry = states_[node];
    entry.node = node;
    entry.alive = true;
    entry.stopped_at.reset();
    ++entry.incarnation;
    state = entry;
  }
  announce(node);
  return state;
}

KubeletState KubeletControl::delay(const std::string& node, std::chrono::milliseconds delay) {
  KubeletState state;
  {
    std::lock_guard lock(mutex_);
    auto& entry = states_[node];
    entry.node = node;
    entry.renewal_delay = delay;
    state = entry;
  }
  announce(node);
  return state;
}

KubeletState KubeletControl::state(const std::string& node) const {
  std::lock_guard lock(mutex_);
  auto found = states_.find(node);
  if (found != states_.end()) return found->second;
  KubeletState state;
  state.node = node;
  return state;
}

bool KubeletControl::alive(const std::string& node) const {
  std::lock_guard lock(mutex_);
  auto found = states_.find(node);
  return found == states_.end() || found->second.alive;
}

std::uint64_t KubeletControl::incarnation(const std::string& node) const {
  std::lock_guard lock(mutex_);
  auto found = states_.find(node);
  return found == states_.end() ? 0 : found->second.incarnation;
}

std::chrono::milliseconds KubeletControl::renewal_delay(const std::string& node) const {
  std::lock_guard lock(mutex_);
  auto found = states_.find(node);
  return found == states_.end() ? std::chrono::milliseconds(0) : found->second.renewal_delay;
}

void KubeletControl::renewed(const std::string& node, const std::string& renew_time) {
  std::lock_guard lock(mutex_);
  auto& entry = states_[node];
  entry.node = node;
  entry.last_renewal = Instant::now();
  entry.last_renew_time = renew_time;
}

void KubeletControl::forget(const std::string& node) {
  std::lock_guard lock(mutex_);
  states_.erase(node);
}

void KubeletControl::on_change(std::function<void(const std::string& node)> callback) {
  on_change_ = std::move(callback);
}

void KubeletControl::announce(const std::string& node) {
  boost::asio::post(strand_, [this, node] {
    if (on_change_) on_change_(node);
  });
}

}  // namespace rg::sim
