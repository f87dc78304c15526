// Unstructured: any Kubernetes object as a boost::json::object, kept losslessly (unknown fields,
// key order and number forms survive a round trip), with readers for its metadata.
#pragma once

#include <boost/json/object.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "client/labels/labels.hpp"
#include "client/model/decode_error.hpp"
#include "client/model/object_meta.hpp"
#include "client/model/value_sink.hpp"

namespace rg::client {

class Unstructured {
 public:
  Unstructured() = default;
  explicit Unstructured(boost::json::object object) : object_(std::move(object)) {}

  /// Parses one JSON object; throws DecodeError when it is not valid JSON or not an object.
  static Unstructured parse(std::string_view json);

  const boost::json::object& object() const noexcept { return object_; }
  boost::json::object& object() noexcept { return object_; }
  std::string serialize() const;

  // Readers: empty (or nullopt/0) when a field is absent or not of the expected JSON type.
  std::string_view api_version() const;
  std::string_view kind() const;
  std::string_view name() const;
  std::string_view generate_name() const;
  std::string_view namespace_() const;
  std::string_view uid() const;
  std::string_view resource_version() const;
  std::string_view creation_timestamp() const;
  std::optional<std::string_view> deletion_timestamp() const;
  std::int64_t generation() const;
  std::optional<std::string_view> label(std::string_view key) const;
  std::optional<std::string_view> annotation(std::string_view key) const;
  Labels labels() const;
  Labels annotations() const;
  /// metadata.ownerReferences; entries that are not objects and fields of the wrong type are
  /// skipped (as the other readers do).
  std::vector<OwnerReference> owner_references() const;
  /// The uid of the owner reference with controller=true, or empty.
  std::string_view controller_uid() const;

  /// The metadata decoded strictly into ObjectMeta; throws DecodeError naming a field of the
  /// wrong type.
  ObjectMeta metadata() const;

  /// For an item of a list that left its type out: when apiVersion and kind are both absent or
  /// empty, sets them to `api_version` and to `list_kind` without its "List" suffix
  /// (apimachinery unstructured/helpers.go, unstructuredJSONScheme.decodeToList).
  void set_type_meta_if_missing(std::string_view api_version, std::string_view list_kind);

  /// Sets metadata.resourceVersion (creating metadata if needed).
  void set_resource_version(std::string_view resource_version);

  friend bool operator==(const Unstructured&, const Unstructured&) = default;

 private:
  const boost::json::object* metadata_object() const;
  std::string_view metadata_string(std::string_view key) const;

  boost::json::object object_;
};

namespace detail {
/// A sink decoding into an Unstructured (the target): the root must be an object, and with
/// `require_metadata` it must have a `metadata` object.
std::unique_ptr<ValueSink> make_unstructured_sink(bool require_metadata);
}  // namespace detail

}  // namespace rg::client
