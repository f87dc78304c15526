// LeanMeta: the metadata a projected object needs in an informer's cache -- namespace, name,
// uid, resourceVersion, labels and the controller owner's uid -- and nothing else: no
// annotations (kubectl's last-applied-configuration is often as big as the object), managed
// fields, finalizers or timestamps. A user type made by a projection (projection.hpp) inherits it
// and adds the fields it reads; it is then a KubeObject (ExposesMeta): cached, indexed by
// namespace, label and controller, listed and handed to handlers like any other.
//
//   struct WidgetSize : LeanMeta { std::int64_t size = 0; };
//   WidgetSize project(const Unstructured& u) { return {LeanMeta(u), read_size(u)}; }
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "client/labels/labels.hpp"
#include "client/model/compact_string.hpp"
#include "client/model/object_meta.hpp"
#include "client/model/unstructured.hpp"

namespace rg::informer {

class LeanMeta {
 public:
  LeanMeta() = default;
  /// Copies what it keeps from a decoded object's metadata.
  explicit LeanMeta(const client::Unstructured& object)
      : namespace_name_(object.namespace_()),
        name_(object.name()),
        uid_(object.uid()),
        resource_version_(object.resource_version()),
        controller_uid_(object.controller_uid()),
        labels_(object.labels()) {}

  std::string_view name() const { return name_; }
  std::string_view namespace_() const { return namespace_name_; }
  std::string_view uid() const { return uid_; }
  std::string_view resource_version() const { return resource_version_; }
  const client::Labels& labels() const { return labels_; }
  /// Annotations are not kept.
  std::optional<std::string_view> annotation(std::string_view /*key*/) const {
    return std::nullopt;
  }
  /// Owner references are not kept (only the controller's uid is).
  const std::vector<client::OwnerReference>& owner_references() const {
    static const std::vector<client::OwnerReference> kNone;
    return kNone;
  }
  std::string_view controller_uid() const { return controller_uid_; }

 private:
  client::CompactString namespace_name_;
  client::CompactString name_;
  client::CompactString uid_;
  client::CompactString resource_version_;
  client::CompactString controller_uid_;
  client::Labels labels_;
};

}  // namespace rg::informer
