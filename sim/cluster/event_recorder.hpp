// EventRecorder: core/v1 Events from a simulated component, as client-go's record.EventRecorder
// and its broadcaster write them (tools/record/event.go, v0.35.0):
//  - makeEvent: name "<involved object's name>.<UnixNano in hex>", the involved object's
//    namespace ("default" for cluster-scoped ones), involvedObject, reason, message, type,
//    firstTimestamp = lastTimestamp = now, count 1; generateEvent: source (component, host),
//    reportingComponent = source.component, reportingInstance = source.host;
//  - recordToSink: the broadcaster's EventCorrelator (client/record: aggregation, counting, spam
//    filter), then create the Event, or for a repeat PATCH count, lastTimestamp and message of
//    the stored one (created again when it is gone).
// One recorder is one broadcaster (its own correlator): one per controller, one per kubelet.
// Writes go to the Store directly, as real objects (watchable), and only while the component's
// identity reaches the API server; one that does not is dropped (client-go retries 12 times,
// 10 s apart, then drops it too). Nothing is recorded with ClusterOptions::record_events off.
#pragma once

#include <string>
#include <string_view>

#include "client/model/event.hpp"
#include "client/record/event_correlator.hpp"
#include "sim/cluster/caches.hpp"

namespace rg::sim::cluster {

/// reference.GetReference of a stored object (apiVersion, kind, namespace, name, uid,
/// resourceVersion); `field_path` names a container ("spec.containers{nginx}").
client::ObjectReference reference_to(std::string_view api_version, std::string_view kind,
                                     const StoredObject& object, std::string field_path = {});

/// Who writes: the identity a component's requests would carry (for faults).
struct Identity {
  std::string user;
  std::string user_agent;
};

/// A kube-controller-manager controller's identity with --use-service-account-credentials
/// (user system:serviceaccount:kube-system:<name>, the User-Agent kube-controller-manager/...).
Identity controller_identity(std::string_view service_account);

class EventRecorder {
 public:
  /// `source`: source.component ("kubelet", "replicaset-controller") and source.host (the
  /// node for a kubelet, empty for kube-controller-manager's controllers).
  EventRecorder(Context& context, client::EventSource source, Identity identity);

  /// Eventf: records one Event ("Normal" or "Warning").
  void event(const client::ObjectReference& object, std::string_view type, std::string_view reason,
             std::string message);

 private:
  void write(const client::Event& event);

  Context& context_;
  client::EventSource source_;
  Identity identity_;
  client::EventCorrelator correlator_;
};

}  // namespace rg::sim::cluster
