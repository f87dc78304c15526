// Encoding a stored object once and extracting its selectable fields.
#include "sim/stored_object.hpp"

#include <boost/json.hpp>

#include <stdexcept>

#include "sim/json_fields.hpp"
#include "sim/stored_object_parse.hpp"

namespace rg::sim {
namespace {

// The value at a dotted path, as a field selector compares it (bools as "true"/"false").
std::string field_value(const boost::json::object& object, std::string_view path) {
  if (path == "source") path = "source.component";  // core/v1 Event's "source" selector
  const boost::json::value* current = nullptr;
  const boost::json::object* parent = &object;
  while (parent != nullptr) {
    auto dot = path.find('.');
    auto part = path.substr(0, dot);
    current = parent->if_contains(part);
    if (current == nullptr) return {};
    if (dot == std::string_view::npos) break;
    path.remove_prefix(dot + 1);
    parent = current->if_object();
    if (parent == nullptr) return {};
  }
  if (current == nullptr) return {};
  if (const auto* s = current->if_string()) return std::string(s->data(), s->size());
  if (const auto* b = current->if_bool()) return *b ? "true" : "false";
  if (current->is_number()) return boost::json::serialize(*current);
  return {};
}

// Appends the JSON of `what` (a `const value*` or a string_view) to `out`.
template <class What>
void append_json(std::string& out, What what) {
  boost::json::serializer serializer;
  serializer.reset(what);
  char buffer[4096];
  while (!serializer.done()) out.append(serializer.read(buffer));
}

}  // namespace

std::string object_key(std::string_view namespace_, std::string_view name) {
  if (namespace_.empty()) return std::string(name);
  std::string key;
  key.reserve(namespace_.size() + 1 + name.size());
  key.append(namespace_).append("/").append(name);
  return key;
}

std::string StoredObject::key() const { return object_key(namespace_, name); }

std::string_view StoredObject::field(std::string_view selector_key) const {
  if (selector_key == "metadata.name") return name;
  if (selector_key == "metadata.namespace") return namespace_;
  const auto& fields = type->selectable_fields;
  for (std::size_t i = 0; i < fields.size(); ++i)
    if (fields[i] == selector_key) return field_values[i];
  for (const auto& [alias, field] : type->field_label_aliases)
    if (alias == selector_key) return this->field(field);
  throw std::out_of_range("field label not supported: " + std::string(selector_key));
}

std::string_view StoredObject::type_meta_prefix() const { return type->type_meta_prefix; }

std::string StoredObject::typed_json() const {
  auto prefix = type_meta_prefix();
  std::string json;
  json.reserve(prefix.size() + body.size());
  json.append(prefix).append(std::string_view(body).substr(1));
  return json;
}

boost::json::object StoredObject::parse() const { return parse_stored_object(*this, {}); }

ObjectPtr make_stored_object(const ResourceType& type, const boost::json::object& object) {
  auto stored = std::make_shared<StoredObject>();
  stored->type = &type;
  const auto* metadata = object.if_contains("metadata");
  if (metadata == nullptr || !metadata->is_object())
    throw std::invalid_argument("object without metadata");
  const auto& meta = metadata->get_object();
  stored->namespace_ = string_at(meta, "namespace");
  stored->name = string_at(meta, "name");
  stored->uid = string_at(meta, "uid");
  const std::string resource_version = string_at(meta, "resourceVersion");
  stored->resource_version = resource_version.empty() ? 0 : std::stoull(resource_version);
  if (const auto* labels = meta.if_contains("labels"); labels != nullptr && labels->is_object()) {
    for (const auto& [key, value] : labels->get_object())
      if (value.is_string())
        stored->labels.emplace(std::string(key), std::string(value.get_string()));
  }
  stored->field_values.reserve(type.selectable_fields.size());
  for (const auto& field : type.selectable_fields)
    stored->field_values.push_back(field_value(object, field));

  // Serialize without kind/apiVersion, metadata first (as Go orders the struct fields), into a
  // scratch buffer the thread reuses; the body kept is an exact-size copy of it.
  thread_local std::string scratch;
  scratch.assign("{\"metadata\":");
  append_json(scratch, metadata);
  for (const auto& [key, value] : object) {
    if (key == "kind" || key == "apiVersion" || key == "metadata") continue;
    scratch += ',';
    append_json(scratch, boost::json::string_view(key));
    scratch += ':';
    append_json(scratch, &value);
  }
  scratch += '}';
  stored->body.assign(scratch);
  return stored;
}

}  // namespace rg::sim
