// EventRecorder: core/v1 Events from the simulated cluster's components, shaped as client-go's
// record.EventRecorder writes them (tools/record/event.go makeEvent): name
// "<involved object's name>.<UnixNano in hex>", the involved object's namespace ("default" for
// cluster-scoped ones), involvedObject, reason, message, type, source.component,
// reportingComponent / reportingInstance, firstTimestamp = lastTimestamp, count 1. Each
// component has its own recorder (its source); an Event is written only while the component's
// identity reaches the API server. Not yet: the broadcaster's aggregation and spam filter
// (EventCorrelator), and retries of failed writes -- every call writes one new Event.
#pragma once

#include <string>
#include <string_view>

#include "sim/cluster/caches.hpp"

namespace rg::sim::cluster {

/// The object an Event is about (v1.ObjectReference).
struct InvolvedObject {
  std::string api_version;
  std::string kind;
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string resource_version;  ///< empty: not set (e.g. RecordNodeStatusChange's reference)

  /// reference.GetReference of a stored object.
  static InvolvedObject of(std::string_view api_version, std::string_view kind,
                           const StoredObject& object);
};

class EventRecorder {
 public:
  /// `component`: source.component and reportingComponent ("node-controller"); `host`:
  /// source.host and reportingInstance (empty for kube-controller-manager's controllers);
  /// `user`/`user_agent`: the identity its writes would carry.
  EventRecorder(Context& context, std::string component, std::string host, std::string user,
                std::string user_agent);

  /// Records one Event ("Normal" or "Warning").
  void event(const InvolvedObject& object, std::string_view type, std::string_view reason,
             std::string_view message);

 private:
  Context& context_;
  std::string component_;
  std::string host_;
  std::string user_;
  std::string user_agent_;
};

}  // namespace rg::sim::cluster
