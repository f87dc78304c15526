// Schema of the Deployment projection (and of the pod template's metadata, shared with
// ReplicaSet).
#include "client/model/deployment.hpp"

#include "client/model/schema.hpp"

namespace rg::client::detail {

const StructDesc& schema_of(Tag<PodTemplateSpec>) {
  static constexpr FieldDesc fields[] = {
      field<&PodTemplateSpec::metadata>("metadata"),
  };
  static constexpr StructDesc desc{"PodTemplateSpec", fields};
  return desc;
}

const StructDesc& schema_of(Tag<DeploymentSpec>) {
  static constexpr FieldDesc fields[] = {
      field<&DeploymentSpec::replicas>("replicas"),
      field<&DeploymentSpec::selector>("selector"),
      field<&DeploymentSpec::template_>("template"),
      field<&DeploymentSpec::min_ready_seconds>("minReadySeconds"),
      field<&DeploymentSpec::revision_history_limit>("revisionHistoryLimit"),
      field<&DeploymentSpec::paused>("paused"),
      field<&DeploymentSpec::progress_deadline_seconds>("progressDeadlineSeconds"),
  };
  static constexpr StructDesc desc{"DeploymentSpec", fields};
  return desc;
}

const StructDesc& schema_of(Tag<DeploymentCondition>) {
  static constexpr FieldDesc fields[] = {
      field<&DeploymentCondition::type>("type"),
      field<&DeploymentCondition::status>("status"),
      field<&DeploymentCondition::reason>("reason"),
      field<&DeploymentCondition::message>("message"),
      field<&DeploymentCondition::last_update_time>("lastUpdateTime"),
      field<&DeploymentCondition::last_transition_time>("lastTransitionTime"),
  };
  static constexpr StructDesc desc{"DeploymentCondition", fields};
  return desc;
}

const StructDesc& schema_of(Tag<DeploymentStatus>) {
  static constexpr FieldDesc fields[] = {
      field<&DeploymentStatus::observed_generation>("observedGeneration"),
      field<&DeploymentStatus::replicas>("replicas"),
      field<&DeploymentStatus::updated_replicas>("updatedReplicas"),
      field<&DeploymentStatus::ready_replicas>("readyReplicas"),
      field<&DeploymentStatus::available_replicas>("availableReplicas"),
      field<&DeploymentStatus::unavailable_replicas>("unavailableReplicas"),
      field<&DeploymentStatus::terminating_replicas>("terminatingReplicas"),
      field<&DeploymentStatus::conditions>("conditions"),
      field<&DeploymentStatus::collision_count>("collisionCount"),
  };
  static constexpr StructDesc desc{"DeploymentStatus", fields};
  return desc;
}

const StructDesc& schema_of(Tag<Deployment>) {
  static constexpr FieldDesc fields[] = {
      field<&Deployment::metadata, &object_meta_with_managed_fields>("metadata", true),
      field<&Deployment::spec>("spec"),
      field<&Deployment::status>("status"),
  };
  static constexpr StructDesc desc{"Deployment", fields, "apps/v1", "Deployment"};
  return desc;
}

}  // namespace rg::client::detail
