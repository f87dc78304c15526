// ReplicaSet (apps/v1): the typed projection of what an operator reads from a ReplicaSet (the
// link between a Deployment and its pods, through owner references and the selector).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "client/model/deployment.hpp"
#include "client/model/label_selector_spec.hpp"
#include "client/model/object_meta.hpp"

namespace rg::client {

struct ReplicaSetSpec {
  std::optional<std::int32_t> replicas;  ///< absent means 1: use desired_replicas()
  std::int32_t min_ready_seconds = 0;
  LabelSelectorSpec selector;
  PodTemplateSpec template_;

  std::int32_t desired_replicas() const { return replicas.value_or(1); }
};

/// A replica set condition: type "ReplicaFailure".
struct ReplicaSetCondition {
  std::string type;
  std::string status;
  std::string reason;
  std::string message;
  std::string last_transition_time;
};

struct ReplicaSetStatus {
  std::int32_t replicas = 0;
  std::int32_t fully_labeled_replicas = 0;
  std::int32_t ready_replicas = 0;
  std::int32_t available_replicas = 0;
  std::optional<std::int32_t> terminating_replicas;
  std::int64_t observed_generation = 0;
  std::vector<ReplicaSetCondition> conditions;
};

struct ReplicaSet {
  ObjectMeta metadata;
  ReplicaSetSpec spec;
  ReplicaSetStatus status;
};

namespace detail {
const StructDesc& schema_of(Tag<ReplicaSet>);
}  // namespace detail

}  // namespace rg::client
