// StoredObject: one object as kube-sim keeps it -- encoded once, at write time, and reused for
// every GET, list item and watch event -- plus the few fields selectors need, extracted once.
#pragma once

#include <boost/json/fwd.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "client/labels/labels.hpp"
#include "sim/resource_table.hpp"

namespace rg::sim {

struct StoredObject {
  const ResourceType* type = nullptr;
  std::string namespace_;
  std::string name;
  std::string uid;
  std::uint64_t resource_version = 0;
  client::Labels labels;
  /// Values of type->selectable_fields, in that order ("" when absent).
  std::vector<std::string> field_values;
  /// The object encoded as JSON without kind and apiVersion: exactly a list item. Starts with
  /// `{"metadata":`.
  std::string body;

  /// "namespace/name" (namespaced) or "name": the store's sort key, as etcd orders keys.
  std::string key() const;
  /// The value of a field selector key ("metadata.name", "spec.nodeName"); nullopt-like empty
  /// string when absent. Throws std::out_of_range for a key the type does not support.
  std::string_view field(std::string_view selector_key) const;
  /// `{"kind":"Pod","apiVersion":"v1",` -- prepend to body.substr(1) for a typed document.
  std::string_view type_meta_prefix() const;
  /// The full object (with kind and apiVersion) as a JSON document.
  std::string typed_json() const;
  /// The full object (with kind and apiVersion), parsed.
  boost::json::object parse() const;
};

using ObjectPtr = std::shared_ptr<const StoredObject>;

/// Encodes `object` (whose metadata is final, resourceVersion included unless it is a dry run's
/// result) for `type`.
ObjectPtr make_stored_object(const ResourceType& type, const boost::json::object& object);

/// The store key of a name in a namespace ("" for cluster-scoped).
std::string object_key(std::string_view namespace_, std::string_view name);

}  // namespace rg::sim
