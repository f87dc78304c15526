// Schema of the ReplicaSet projection.
#include "client/model/replica_set.hpp"

#include "client/model/schema.hpp"

namespace rg::client::detail {

const StructDesc& schema_of(Tag<ReplicaSetSpec>) {
  static constexpr FieldDesc fields[] = {
      field<&ReplicaSetSpec::replicas>("replicas"),
      field<&ReplicaSetSpec::min_ready_seconds>("minReadySeconds"),
      field<&ReplicaSetSpec::selector>("selector"),
      field<&ReplicaSetSpec::template_>("template"),
  };
  static constexpr StructDesc desc{"ReplicaSetSpec", fields};
  return desc;
}

const StructDesc& schema_of(Tag<ReplicaSetCondition>) {
  static constexpr FieldDesc fields[] = {
      field<&ReplicaSetCondition::type>("type"),
      field<&ReplicaSetCondition::status>("status"),
      field<&ReplicaSetCondition::reason>("reason"),
      field<&ReplicaSetCondition::message>("message"),
      field<&ReplicaSetCondition::last_transition_time>("lastTransitionTime"),
  };
  static constexpr StructDesc desc{"ReplicaSetCondition", fields};
  return desc;
}

const StructDesc& schema_of(Tag<ReplicaSetStatus>) {
  static constexpr FieldDesc fields[] = {
      field<&ReplicaSetStatus::replicas>("replicas"),
      field<&ReplicaSetStatus::fully_labeled_replicas>("fullyLabeledReplicas"),
      field<&ReplicaSetStatus::ready_replicas>("readyReplicas"),
      field<&ReplicaSetStatus::available_replicas>("availableReplicas"),
      field<&ReplicaSetStatus::terminating_replicas>("terminatingReplicas"),
      field<&ReplicaSetStatus::observed_generation>("observedGeneration"),
      field<&ReplicaSetStatus::conditions>("conditions"),
  };
  static constexpr StructDesc desc{"ReplicaSetStatus", fields};
  return desc;
}

const StructDesc& schema_of(Tag<ReplicaSet>) {
  static constexpr FieldDesc fields[] = {
      field<&ReplicaSet::metadata>("metadata", true),
      field<&ReplicaSet::spec>("spec"),
      field<&ReplicaSet::status>("status"),
  };
  static constexpr StructDesc desc{"ReplicaSet", fields, "apps/v1", "ReplicaSet"};
  return desc;
}

}  // namespace rg::client::detail
