// Schema of the Node projection.
#include "client/model/node.hpp"

#include "client/model/schema.hpp"

namespace rg::client::detail {

const StructDesc& schema_of(Tag<Taint>) {
  static constexpr FieldDesc fields[] = {
      field<&Taint::key>("key"),
      field<&Taint::value>("value"),
      field<&Taint::effect>("effect"),
      field<&Taint::time_added>("timeAdded"),
  };
  static constexpr StructDesc desc{"Taint", fields};
  return desc;
}

const StructDesc& schema_of(Tag<NodeSpec>) {
  static constexpr FieldDesc fields[] = {
      field<&NodeSpec::unschedulable>("unschedulable"),
      field<&NodeSpec::taints>("taints"),
      field<&NodeSpec::provider_id>("providerID"),
      field<&NodeSpec::pod_cidr>("podCIDR"),
  };
  static constexpr StructDesc desc{"NodeSpec", fields};
  return desc;
}

const StructDesc& schema_of(Tag<NodeCondition>) {
  static constexpr FieldDesc fields[] = {
      field<&NodeCondition::type>("type"),
      field<&NodeCondition::status>("status"),
      field<&NodeCondition::reason>("reason"),
      field<&NodeCondition::message>("message"),
      field<&NodeCondition::last_heartbeat_time>("lastHeartbeatTime"),
      field<&NodeCondition::last_transition_time>("lastTransitionTime"),
  };
  static constexpr StructDesc desc{"NodeCondition", fields};
  return desc;
}

const StructDesc& schema_of(Tag<NodeStatus>) {
  static constexpr FieldDesc fields[] = {
      field<&NodeStatus::phase>("phase"),
      field<&NodeStatus::conditions>("conditions"),
  };
  static constexpr StructDesc desc{"NodeStatus", fields};
  return desc;
}

const StructDesc& schema_of(Tag<Node>) {
  static constexpr FieldDesc fields[] = {
      field<&Node::metadata>("metadata", true),
      field<&Node::spec>("spec"),
      field<&Node::status>("status"),
  };
  static constexpr StructDesc desc{"Node", fields, "v1", "Node"};
  return desc;
}

}  // namespace rg::client::detail
