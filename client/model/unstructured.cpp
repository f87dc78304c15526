// Unstructured: metadata readers and the sink that decodes a JSON object into one.
#include "client/model/unstructured.hpp"

#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include "client/model/codec.hpp"
#include "client/model/decode_error.hpp"
#include "client/model/dom_sink.hpp"
#include "client/model/json_reader.hpp"

namespace rg::client {
namespace {

std::string_view string_at(const boost::json::object* object, std::string_view key) {
  if (object == nullptr) return {};
  const auto* value = object->if_contains(key);
  if (value == nullptr || !value->is_string()) return {};
  return value->get_string();
}

// metadata.ownerReferences, or an empty array when absent or not an array.
const boost::json::array& owners_of(const boost::json::object* metadata) {
  static const boost::json::array kNone;
  const auto* list = metadata == nullptr ? nullptr : metadata->if_contains("ownerReferences");
  return list != nullptr && list->is_array() ? list->get_array() : kNone;
}

bool flag_at(const boost::json::object* object, std::string_view key) {
  const auto* value = object->if_contains(key);
  return value != nullptr && value->is_bool() && value->get_bool();
}

const boost::json::object* object_at(const boost::json::object* object, std::string_view key) {
  if (object == nullptr) return nullptr;
  const auto* value = object->if_contains(key);
  return value == nullptr ? nullptr : value->if_object();
}

std::optional<std::string_view> entry_of(const boost::json::object* map, std::string_view key) {
  if (map == nullptr) return std::nullopt;
  const auto* value = map->if_contains(key);
  if (value == nullptr || !value->is_string()) return std::nullopt;
  return std::string_view(value->get_string());
}

std::string_view json_type_name(const boost::json::value& value) {
  switch (value.kind()) {
    case boost::json::kind::object:
      return detail::name_of(detail::JsonType::kObject);
    case boost::json::kind::array:
      return detail::name_of(detail::JsonType::kArray);
    case boost::json::kind::string:
      return detail::name_of(detail::JsonType::kString);
    case boost::json::kind::bool_:
      return detail::name_of(detail::JsonType::kBoolean);
    case boost::json::kind::null:
      return detail::name_of(detail::JsonType::kNull);
    default:
      return detail::name_of(detail::JsonType::kNumber);
  }
}

Labels labels_of(const boost::json::object* map) {
  Labels labels;
  if (map == nullptr) return labels;
  for (const auto& [key, value] : *map) {
    if (value.is_string())
      labels.insert_or_assign(std::string(key), std::string(value.get_string()));
  }
  return labels;
}

// Builds the value as a DOM, then checks it is an object (with metadata if required) and moves
// it into the target Unstructured.
class UnstructuredSink final : public detail::DomSink {
 public:
  explicit UnstructuredSink(bool require_metadata) : require_metadata_(require_metadata) {}

 private:
  bool complete(boost::json::value&& value) override {
    auto* object = value.if_object();
    if (object == nullptr) {
      return fail({}, "expected object, got " + std::string(json_type_name(value)));
    }
    if (require_metadata_) {
      const auto* metadata = object->if_contains("metadata");
      if (metadata == nullptr) return fail({}, "missing required field \"metadata\"");
      if (!metadata->is_object()) {
        return fail("metadata", "expected object, got " + std::string(json_type_name(*metadata)));
      }
    }
    static_cast<Unstructured*>(target())->object() = std::move(*object);
    return true;
  }

  bool require_metadata_;
};

}  // namespace

namespace detail {
std::unique_ptr<ValueSink> make_unstructured_sink(bool require_metadata) {
  return std::make_unique<UnstructuredSink>(require_metadata);
}
}  // namespace detail

Unstructured Unstructured::parse(std::string_view json) {
  Unstructured result;
  const auto sink = detail::make_unstructured_sink(false);
  sink->start(&result);
  detail::JsonReader reader(*sink);
  try {
    reader.write_whole(json);
  } catch (const DecodeError& error) {
    throw DecodeError(std::string("decoding an unstructured object: ") + error.what());
  }
  return result;
}

std::string Unstructured::serialize() const { return boost::json::serialize(object_); }

const boost::json::object* Unstructured::metadata_object() const {
  return object_at(&object_, "metadata");
}

std::string_view Unstructured::metadata_string(std::string_view key) const {
  return string_at(metadata_object(), key);
}

std::string_view Unstructured::api_version() const { return string_at(&object_, "apiVersion"); }
std::string_view Unstructured::kind() const { return string_at(&object_, "kind"); }
std::string_view Unstructured::name() const { return metadata_string("name"); }
std::string_view Unstructured::generate_name() const { return metadata_string("generateName"); }
std::string_view Unstructured::namespace_() const { return metadata_string("namespace"); }
std::string_view Unstructured::uid() const { return metadata_string("uid"); }
std::string_view Unstructured::resource_version() const {
  return metadata_string("resourceVersion");
}
std::string_view Unstructured::creation_timestamp() const {
  return metadata_string("creationTimestamp");
}

std::optional<std::string_view> Unstructured::deletion_timestamp() const {
  return entry_of(metadata_object(), "deletionTimestamp");
}

std::int64_t Unstructured::generation() const {
  const auto* metadata = metadata_object();
  if (metadata == nullptr) return 0;
  const auto* value = metadata->if_contains("generation");
  if (value == nullptr) return 0;
  boost::json::error_code ec;
  const auto generation = value->to_number<std::int64_t>(ec);
  return ec ? 0 : generation;
}

std::optional<std::string_view> Unstructured::label(std::string_view key) const {
  return entry_of(object_at(metadata_object(), "labels"), key);
}

std::optional<std::string_view> Unstructured::annotation(std::string_view key) const {
  return entry_of(object_at(metadata_object(), "annotations"), key);
}

Labels Unstructured::labels() const { return labels_of(object_at(metadata_object(), "labels")); }

Labels Unstructured::annotations() const {
  return labels_of(object_at(metadata_object(), "annotations"));
}

std::vector<OwnerReference> Unstructured::owner_references() const {
  std::vector<OwnerReference> owners;
  for (const auto& entry : owners_of(metadata_object())) {
    const auto* owner = entry.if_object();
    if (owner == nullptr) continue;
    OwnerReference reference;
    reference.api_version = string_at(owner, "apiVersion");
    reference.kind = string_at(owner, "kind");
    reference.name = string_at(owner, "name");
    reference.uid = string_at(owner, "uid");
    reference.controller = flag_at(owner, "controller");
    reference.block_owner_deletion = flag_at(owner, "blockOwnerDeletion");
    owners.push_back(std::move(reference));
  }
  return owners;
}

std::string_view Unstructured::controller_uid() const {
  for (const auto& entry : owners_of(metadata_object())) {
    const auto* owner = entry.if_object();
    if (owner != nullptr && flag_at(owner, "controller")) return string_at(owner, "uid");
  }
  return {};
}

ObjectMeta Unstructured::metadata() const {
  const auto* metadata = object_.if_contains("metadata");
  if (metadata == nullptr) return {};
  return decode_value<ObjectMeta>(*metadata);
}

void Unstructured::set_type_meta_if_missing(std::string_view api_version,
                                            std::string_view list_kind) {
  if (!this->api_version().empty() || !kind().empty()) return;
  if (list_kind.ends_with("List")) list_kind.remove_suffix(4);
  if (!api_version.empty()) object_["apiVersion"] = api_version;
  if (!list_kind.empty()) object_["kind"] = list_kind;
}

void Unstructured::set_resource_version(std::string_view resource_version) {
  auto& metadata = object_["metadata"];
  if (!metadata.is_object()) metadata = boost::json::object{};
  metadata.get_object()["resourceVersion"] = resource_version;
}

}  // namespace rg::client
