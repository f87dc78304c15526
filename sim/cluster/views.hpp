// Views: what the simulated cluster's controllers read from Pods, Nodes, Leases, ReplicaSets
// and Deployments, parsed once per stored version and shared by every controller (the
// projections an informer cache would hold). `object` is the stored version they came from.
#pragma once

#include <boost/json/object.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "client/labels/label_selector.hpp"
#include "sim/stored_object.hpp"

namespace rg::sim::cluster {

/// The controlling owner reference (controller: true), if any.
struct ControllerRef {
  std::string kind;
  std::string name;
  std::string uid;
};

struct Toleration {
  std::string key;
  std::string operator_ = "Equal";
  std::string value;
  std::string effect;  ///< empty = every effect
  std::optional<std::int64_t> toleration_seconds;
};

struct Taint {
  std::string key;
  std::string value;
  std::string effect;
  std::string time_added;
};

/// True when `toleration` tolerates `taint` (v1.Toleration.ToleratesTaint).
bool tolerates(const Toleration& toleration, const Taint& taint);

struct PodView {
  ObjectPtr object;
  std::string node_name;
  std::string phase;
  std::string scheduler_name;
  bool deleting = false;    ///< has metadata.deletionTimestamp
  bool ready = false;       ///< condition Ready is True
  std::string ready_since;  ///< the Ready condition's lastTransitionTime
  std::string created;      ///< metadata.creationTimestamp
  std::int64_t restart_count = 0;
  std::optional<ControllerRef> controller;
  std::vector<Toleration> tolerations;
  /// spec.nodeSelector: labels a node must carry (all of them) for the pod to run there.
  std::vector<std::pair<std::string, std::string>> node_selector;

  static PodView from(ObjectPtr object);
  /// Counted by a ReplicaSet: neither terminating nor finished (controller.FilterActivePods).
  bool active() const { return !deleting && phase != "Succeeded" && phase != "Failed"; }
  bool tolerates_all(const std::vector<Taint>& taints, std::string_view effect) const;
  /// True when the node's labels carry every spec.nodeSelector entry (the nodeSelector half of
  /// kube-scheduler's NodeAffinity filter).
  bool selects(const StoredObject& node) const;
};

struct NodeView {
  ObjectPtr object;
  std::string ready;      ///< Ready condition status: "True", "False", "Unknown" or "" (none)
  std::string heartbeat;  ///< Ready condition lastHeartbeatTime
  bool unschedulable = false;
  bool kubelet_stopped = false;  ///< label sim.replica-guard.io/kubelet=stopped
  std::vector<Taint> taints;

  static NodeView from(ObjectPtr object);
};

struct LeaseView {
  ObjectPtr object;
  std::string renew_time;

  static LeaseView from(ObjectPtr object);
};

struct ReplicaSetView {
  ObjectPtr object;
  std::int64_t generation = 0;
  std::int64_t replicas = 0;  ///< spec.replicas
  client::LabelSelector selector;
  std::optional<ControllerRef> controller;
  boost::json::object template_;    ///< spec.template
  std::int64_t revision = 0;        ///< annotation deployment.kubernetes.io/revision
  boost::json::object annotations;  ///< metadata.annotations
  std::int64_t status_replicas = 0;
  std::int64_t ready_replicas = 0;
  std::int64_t available_replicas = 0;
  std::int64_t observed_generation = 0;

  static ReplicaSetView from(ObjectPtr object);
};

struct DeploymentView {
  ObjectPtr object;
  std::int64_t generation = 0;
  std::int64_t replicas = 1;
  bool paused = false;
  std::string strategy = "RollingUpdate";
  boost::json::value max_surge;        ///< int or "25%"; null when absent
  boost::json::value max_unavailable;  ///< int or "25%"; null when absent
  boost::json::object selector;        ///< spec.selector as written
  boost::json::object template_;       ///< spec.template
  std::int64_t collision_count = 0;
  boost::json::object annotations;  ///< metadata.annotations

  static DeploymentView from(ObjectPtr object);
};

/// The label that marks a node whose simulated kubelet is stopped, and its value.
inline constexpr std::string_view kKubeletLabel = "sim.replica-guard.io/kubelet";
inline constexpr std::string_view kKubeletStopped = "stopped";

}  // namespace rg::sim::cluster
