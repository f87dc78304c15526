// Schema of the Pod projection: the JSON keys of core/v1 Pod kept by rg::client::Pod.
#include "client/model/pod.hpp"

#include "client/model/schema.hpp"

namespace rg::client::detail {

const StructDesc& schema_of(Tag<PodSpec>) {
  static constexpr FieldDesc fields[] = {
      field<&PodSpec::node_name>("nodeName"),
  };
  static constexpr StructDesc desc{"PodSpec", fields};
  return desc;
}

const StructDesc& schema_of(Tag<PodCondition>) {
  static constexpr FieldDesc fields[] = {
      field<&PodCondition::type>("type"),
      field<&PodCondition::status>("status"),
      field<&PodCondition::reason>("reason"),
      field<&PodCondition::message>("message"),
      field<&PodCondition::last_transition_time>("lastTransitionTime"),
  };
  static constexpr StructDesc desc{"PodCondition", fields};
  return desc;
}

const StructDesc& schema_of(Tag<ContainerStateWaiting>) {
  static constexpr FieldDesc fields[] = {
      field<&ContainerStateWaiting::reason>("reason"),
      field<&ContainerStateWaiting::message>("message"),
  };
  static constexpr StructDesc desc{"ContainerStateWaiting", fields};
  return desc;
}

const StructDesc& schema_of(Tag<ContainerStateRunning>) {
  static constexpr FieldDesc fields[] = {
      field<&ContainerStateRunning::started_at>("startedAt"),
  };
  static constexpr StructDesc desc{"ContainerStateRunning", fields};
  return desc;
}

const StructDesc& schema_of(Tag<ContainerStateTerminated>) {
  static constexpr FieldDesc fields[] = {
      field<&ContainerStateTerminated::exit_code>("exitCode"),
      field<&ContainerStateTerminated::signal>("signal"),
      field<&ContainerStateTerminated::reason>("reason"),
      field<&ContainerStateTerminated::message>("message"),
      field<&ContainerStateTerminated::started_at>("startedAt"),
      field<&ContainerStateTerminated::finished_at>("finishedAt"),
  };
  static constexpr StructDesc desc{"ContainerStateTerminated", fields};
  return desc;
}

const StructDesc& schema_of(Tag<ContainerState>) {
  static constexpr FieldDesc fields[] = {
      field<&ContainerState::waiting>("waiting"),
      field<&ContainerState::running>("running"),
      field<&ContainerState::terminated>("terminated"),
  };
  static constexpr StructDesc desc{"ContainerState", fields};
  return desc;
}

const StructDesc& schema_of(Tag<ContainerStatus>) {
  static constexpr FieldDesc fields[] = {
      field<&ContainerStatus::name>("name"),
      field<&ContainerStatus::ready>("ready"),
      field<&ContainerStatus::restart_count>("restartCount"),
      field<&ContainerStatus::started>("started"),
      field<&ContainerStatus::state>("state"),
      field<&ContainerStatus::last_state>("lastState"),
  };
  static constexpr StructDesc desc{"ContainerStatus", fields};
  return desc;
}

const StructDesc& schema_of(Tag<PodStatus>) {
  static constexpr FieldDesc fields[] = {
      field<&PodStatus::phase>("phase"),
      field<&PodStatus::conditions>("conditions"),
      field<&PodStatus::init_container_statuses>("initContainerStatuses"),
      field<&PodStatus::container_statuses>("containerStatuses"),
  };
  static constexpr StructDesc desc{"PodStatus", fields};
  return desc;
}

const StructDesc& schema_of(Tag<Pod>) {
  static constexpr FieldDesc fields[] = {
      field<&Pod::metadata>("metadata", true),
      field<&Pod::spec>("spec"),
      field<&Pod::status>("status"),
  };
  static constexpr StructDesc desc{"Pod", fields, "v1", "Pod"};
  return desc;
}

}  // namespace rg::client::detail
