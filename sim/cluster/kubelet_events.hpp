// KubeletEvents: the Events one simulated kubelet records (source component "kubelet", host
// the node; core/v1 through its own client-go recorder), with the kubelet's reasons and
// messages (KK pkg/kubelet/events/event.go, and the callers named below):
//  - at start: Starting "Starting kubelet." (kubelet.go), then, as the initial node object's
//    status setters see its conditions appear, NodeHasSufficientMemory, NodeHasNoDiskPressure,
//    NodeHasSufficientPID ("Node <n> status is now: <reason>", nodestatus/setters.go), and
//    NodeAllocatableEnforced "Updated Node Allocatable limit across pods" (cm); NodeReady and
//    the others again when a posted status moves a condition to its healthy value;
//    the node reference is {kind: Node, name, uid: the node's name} (kubelet.go nodeRef);
//  - per container, on the pod reference with fieldPath spec.containers{<name>}
//    (images/image_manager.go, kuberuntime/kuberuntime_container.go): Pulling
//    `Pulling image "<image>"` and Pulled `Successfully pulled image "<image>" in <d> (<d>
//    including waiting). Image size: <n> bytes.` when the pull policy asks for a pull (Always,
//    or IfNotPresent without the image on the node), else Pulled `Container image "<image>"
//    already present on machine and can be accessed by the pod`; Created "Container created";
//    Started "Container started"; Killing "Stopping container <name>" when the pod is deleted.
#pragma once

#include <chrono>
#include <set>
#include <string>

#include "sim/cluster/event_recorder.hpp"

namespace rg::sim::cluster {

/// time.Duration's String() of `d` truncated to milliseconds ("2s", "1.5s", "500ms", "1m0s").
std::string go_duration(std::chrono::milliseconds d);

class KubeletEvents {
 public:
  KubeletEvents(Context& context, const std::string& node_name, Identity identity);

  /// The kubelet process started.
  void starting();
  /// A posted node status moved a condition to its healthy value: `reason` NodeReady,
  /// NodeHasSufficientMemory, ...
  void node_status(std::string_view reason);
  /// The pod worker saw `pod` to start: Pulling for the containers whose image it pulls.
  void pod_seen(const PodView& pod, const std::set<std::string>& images);
  /// The containers of `pod` run: Pulled, Created, Started each; the pulled images are added
  /// to `images` (the node's).
  void pod_started(const StoredObject& pod, std::set<std::string>& images);
  /// The kubelet stops `pod`'s containers: Killing each.
  void pod_stopping(const PodView& pod);

 private:
  client::ObjectReference node_reference() const;

  Context& context_;
  std::string node_name_;
  EventRecorder recorder_;
};

}  // namespace rg::sim::cluster
