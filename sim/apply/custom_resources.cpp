// CustomResourceDefinition rules and types (see custom_resources.hpp). Sources (KAE =
// kubernetes/apiextensions-apiserver at 1aa2717): defaults pkg/apis/apiextensions/v1/defaults.go,
// validation pkg/apis/apiextensions/validation/validation.go, status
// pkg/registry/customresourcedefinition/strategy.go and pkg/controller/{status,establish}.
#include "sim/apply/custom_resources.hpp"
#include "client/model/time.hpp"

#include <fmt/format.h>
#include <boost/json.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <mutex>
#include <tuple>

#include "sim/api_error.hpp"
#include "sim/json_equal.hpp"
#include "sim/json_fields.hpp"

namespace rg::sim::apply {
namespace {

namespace json = boost::json;

const std::vector<std::string> kAllVerbs = {"create", "delete", "deletecollection", "get",
                                            "list",   "patch",  "update",           "watch"};
const std::vector<std::string> kSubVerbs = {"get", "patch", "update"};

std::vector<std::string> strings_at(const json::object& object, std::string_view key) {
  std::vector<std::string> out;
  if (const auto* list = find_array(object, key))
    for (const auto& item : *list)
      if (item.is_string()) out.emplace_back(item.get_string());
  return out;
}

std::string name_of(const json::object& crd) {
  const auto* metadata = find_object(crd, "metadata");
  return metadata != nullptr ? string_at(*metadata, "name") : "";
}

ApiError invalid_definition(const json::object& crd, std::vector<FieldError> problems) {
  return errors::invalid("apiextensions.k8s.io", "CustomResourceDefinition", name_of(crd),
                         problems);
}

ApiError required(const json::object& crd, std::string field, std::string detail = {}) {
  return invalid_definition(
      crd, {{"FieldValueRequired", std::move(field),
             detail.empty() ? "Required value" : "Required value: " + std::move(detail)}});
}

ApiError invalid(const json::object& crd, std::string field, std::string_view value,
                 std::string_view detail) {
  return invalid_definition(crd, {{"FieldValueInvalid", std::move(field),
                                   fmt::format("Invalid value: \"{}\": {}", value, detail)}});
}

std::string lower(std::string text) {
  for (auto& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

bool flag(const json::object& object, std::string_view key) {
  const auto* value = object.if_contains(key);
  return value != nullptr && value->is_bool() && value->get_bool();
}

// The scale subresource's paths (validateCustomResourceDefinitionSubresources): spec and status
// replicas required, under .spec. and .status.; the selector under either.
ScalePaths scale_paths(const json::object& crd, const json::object& scale,
                       const std::string& field) {
  ScalePaths paths{string_at(scale, "specReplicasPath"), string_at(scale, "statusReplicasPath"),
                   string_at(scale, "labelSelectorPath")};
  if (paths.spec_replicas.empty()) throw required(crd, field + ".specReplicasPath");
  if (!paths.spec_replicas.starts_with(".spec."))
    throw invalid(crd, field + ".specReplicasPath", paths.spec_replicas,
                  "should be a json path under .spec");
  if (paths.status_replicas.empty()) throw required(crd, field + ".statusReplicasPath");
  if (!paths.status_replicas.starts_with(".status."))
    throw invalid(crd, field + ".statusReplicasPath", paths.status_replicas,
                  "should be a json path under .status");
  if (!paths.label_selector.empty() && !paths.label_selector.starts_with(".spec.") &&
      !paths.label_selector.starts_with(".status."))
    throw invalid(crd, field + ".labelSelectorPath", paths.label_selector,
                  "should be a json path under either .spec or .status");
  return paths;
}

// apimachinery's CompareKubeAwareVersionStrings: v<N> (GA) before v<N>beta<M> before
// v<N>alpha<M>, higher numbers first; other names after them, alphabetically.
std::tuple<int, int, int> version_rank(std::string_view version) {
  auto number = [](std::string_view text, int& out) {
    if (text.empty()) return false;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), out);
    return error == std::errc() && end == text.data() + text.size();
  };
  if (!version.starts_with('v')) return {0, 0, 0};
  version.remove_prefix(1);
  const auto letters = version.find_first_not_of("0123456789");
  int major = 0;
  if (!number(version.substr(0, letters), major)) return {0, 0, 0};
  if (letters == std::string_view::npos) return {3, major, 0};
  const auto rest = version.substr(letters);
  int minor = 0;
  if (rest.starts_with("beta") && number(rest.substr(4), minor)) return {2, major, minor};
  if (rest.starts_with("alpha") && number(rest.substr(5), minor)) return {1, major, minor};
  return {0, 0, 0};
}

bool discovery_before(const ResourceType* a, const ResourceType* b) {
  const auto ra = version_rank(a->version);
  const auto rb = version_rank(b->version);
  if (ra != rb) return ra > rb;
  return a->version < b->version;
}

const json::object* condition_of(const json::object& status, std::string_view type) {
  if (const auto* conditions = find_array(status, "conditions"))
    for (const auto& condition : *conditions)
      if (condition.is_object() && string_at(condition.get_object(), "type") == type)
        return &condition.get_object();
  return nullptr;
}

// SetCRDCondition: replaces the condition of its type (appended when new), keeping its
// lastTransitionTime when the status does not change.
void set_condition(json::object& status, json::object condition) {
  auto& conditions = array_at(status, "conditions");
  for (auto& existing : conditions) {
    if (!existing.is_object() ||
        string_at(existing.get_object(), "type") != string_at(condition, "type"))
      continue;
    const auto& old = existing.get_object();
    if (string_at(old, "status") == string_at(condition, "status"))
      if (const auto* since = old.if_contains("lastTransitionTime"))
        condition["lastTransitionTime"] = *since;
    existing = std::move(condition);
    return;
  }
  conditions.emplace_back(std::move(condition));
}

json::object condition(std::string_view type, std::string_view status, std::string_view reason,
                       std::string_view message) {
  return json::object{{"type", type},
                      {"status", status},
                      {"lastTransitionTime", client::format_time(std::chrono::system_clock::now())},
                      {"reason", reason},
                      {"message", message}};
}

json::object status_of(const json::object& crd) {
  const auto* status = find_object(crd, "status");
  return status != nullptr ? *status : json::object();
}

}  // namespace

void default_definition(json::object& crd) {
  auto& spec = object_at(crd, "spec");
  auto& names = object_at(spec, "names");
  const std::string kind = string_at(names, "kind");
  if (string_at(names, "singular").empty()) names["singular"] = lower(kind);
  if (string_at(names, "listKind").empty() && !kind.empty()) names["listKind"] = kind + "List";
  if (find_object(spec, "conversion") == nullptr)
    spec["conversion"] = json::object{{"strategy", "None"}};
}

DefinedVersions versions_of_definition(const json::object& crd) {
  const auto* spec = find_object(crd, "spec");
  if (spec == nullptr) throw required(crd, "spec");
  const std::string group = string_at(*spec, "group");
  if (group.empty()) throw required(crd, "spec.group");
  const auto* names = find_object(*spec, "names");
  if (names == nullptr || string_at(*names, "plural").empty())
    throw required(crd, "spec.names.plural");
  if (string_at(*names, "kind").empty()) throw required(crd, "spec.names.kind");
  const std::string plural = string_at(*names, "plural");
  if (name_of(crd) != plural + "." + group)
    throw invalid(crd, "metadata.name", name_of(crd),
                  R"(must be spec.names.plural+"."+spec.group)");
  const std::string scope = string_at(*spec, "scope");
  if (scope != "Namespaced" && scope != "Cluster")
    throw invalid_definition(
        crd, {{"FieldValueNotSupported", "spec.scope",
               fmt::format(R"(Unsupported value: "{}": supported values: "Cluster", "Namespaced")",
                           scope)}});
  const auto* versions = find_array(*spec, "versions");
  if (versions == nullptr || versions->empty())
    throw required(crd, "spec.versions", "must have at least one version");

  DefinedVersions defined;
  std::size_t storages = 0;
  for (std::size_t i = 0; i < versions->size(); ++i) {
    const auto* version = (*versions)[i].if_object();
    const std::string field = fmt::format("spec.versions[{}]", i);
    if (version == nullptr || string_at(*version, "name").empty())
      throw required(crd, field + ".name");
    ResourceType type;
    type.group = group;
    type.version = string_at(*version, "name");
    type.resource = plural;
    type.kind = string_at(*names, "kind");
    type.singular = string_at(*names, "singular");
    if (type.singular.empty()) type.singular = lower(type.kind);
    type.namespaced = scope == "Namespaced";
    type.short_names = strings_at(*names, "shortNames");
    type.categories = strings_at(*names, "categories");
    type.verbs = kAllVerbs;
    type.custom = true;
    if (const auto* subresources = find_object(*version, "subresources")) {
      if (const auto* scale = find_object(*subresources, "scale")) {
        type.scale_paths = scale_paths(crd, *scale, field + ".subresources.scale");
        type.subresources.push_back({"scale", "autoscaling", "v1", "Scale", kSubVerbs});
      }
      if (subresources->contains("status"))
        type.subresources.push_back({"status", group, type.version, type.kind, kSubVerbs});
    }
    type.type_meta_prefix =
        R"({"kind":")" + type.kind + R"(","apiVersion":")" + type.group_version() + "\",";
    if (flag(*version, "storage")) {
      defined.storage = i;
      ++storages;
    }
    defined.served.push_back(flag(*version, "served"));
    defined.types.push_back(std::move(type));
  }
  if (storages != 1)
    throw invalid_definition(crd, {{"FieldValueInvalid", "spec.versions",
                                    "Invalid value: must have exactly one version marked as "
                                    "storage version"}});
  return defined;
}

void validate_definition_update(const json::object& before, const json::object& after) {
  const auto* old_spec = find_object(before, "spec");
  const auto* new_spec = find_object(after, "spec");
  if (old_spec == nullptr || new_spec == nullptr) return;
  auto immutable = [&](std::string field, std::string_view old_value, std::string_view value) {
    if (old_value != value) throw invalid(after, std::move(field), value, "field is immutable");
  };
  immutable("spec.scope", string_at(*old_spec, "scope"), string_at(*new_spec, "scope"));
  immutable("spec.group", string_at(*old_spec, "group"), string_at(*new_spec, "group"));
  const auto* old_names = find_object(*old_spec, "names");
  const auto* new_names = find_object(*new_spec, "names");
  if (old_names != nullptr && new_names != nullptr)
    immutable("spec.names.plural", string_at(*old_names, "plural"),
              string_at(*new_names, "plural"));
}

json::object written_definition_status(const json::object& crd, const json::object* previous) {
  json::object status = previous != nullptr ? *previous : json::object();
  // CustomResourceDefinitionNames: plural and kind have no omitempty.
  if (find_object(status, "acceptedNames") == nullptr)
    status["acceptedNames"] = json::object{{"plural", ""}, {"kind", ""}};
  auto& stored = array_at(status, "storedVersions");
  const auto versions = versions_of_definition(crd);
  const json::value storage(versions.types[versions.storage].version);
  if (std::find(stored.begin(), stored.end(), storage) == stored.end()) stored.push_back(storage);
  return status;
}

std::optional<json::object> names_accepted_status(const json::object& crd) {
  json::object status = status_of(crd);
  const json::object before = status;
  const auto* spec = find_object(crd, "spec");
  const auto* names = spec != nullptr ? find_object(*spec, "names") : nullptr;
  status["acceptedNames"] = names != nullptr ? *names : json::object();
  set_condition(status, condition("NamesAccepted", "True", "NoConflicts", "no conflicts found"));
  const auto* established = condition_of(status, "Established");
  if (established == nullptr || string_at(*established, "status") != "True")
    set_condition(status, condition("Established", "False", "Installing",
                                    "the initial names have been accepted"));
  if (json_equal(before, status)) return std::nullopt;
  return status;
}

std::optional<json::object> established_status(const json::object& crd) {
  json::object status = status_of(crd);
  const auto* established = condition_of(status, "Established");
  if (established != nullptr && string_at(*established, "status") == "True") return std::nullopt;
  set_condition(status, condition("Established", "True", "InitialNamesAccepted",
                                  "the initial names have been accepted"));
  return status;
}

const ResourceType* CustomResources::retire(Definition& definition) {
  const ResourceType* storage = definition.storage;
  for (auto& type : definition.versions) retired_.push_back(std::move(type));
  definition.versions.clear();
  definition.served.clear();
  definition.storage = nullptr;
  return storage;
}

StorageChange CustomResources::define(const std::string& name, const json::object& spec,
                                      DefinedVersions versions) {
  std::unique_lock lock(mutex_);
  auto& definition = definitions_[name];
  if (definition.storage != nullptr && json_equal(definition.spec, spec)) return {};
  StorageChange change{retire(definition), nullptr};
  definition.spec = spec;
  for (auto& type : versions.types)
    definition.versions.push_back(std::make_unique<ResourceType>(std::move(type)));
  const auto* storage = definition.versions[versions.storage].get();
  for (std::size_t i = 0; i < definition.versions.size(); ++i) {
    auto& type = *definition.versions[i];
    if (i != versions.storage) {
      type.storage_version = storage->version;
      type.storage = storage;
    }
    if (versions.served[i]) definition.served.push_back(&type);
  }
  std::stable_sort(definition.served.begin(), definition.served.end(), discovery_before);
  definition.storage = storage;
  change.after = storage;
  ++generation_;
  return change;
}

StorageChange CustomResources::undefine(const std::string& name) {
  std::unique_lock lock(mutex_);
  auto it = definitions_.find(name);
  if (it == definitions_.end()) return {};
  StorageChange change{retire(it->second), nullptr};
  definitions_.erase(it);
  ++generation_;
  return change;
}

const ResourceType* CustomResources::find(std::string_view group, std::string_view version,
                                          std::string_view resource) const {
  std::shared_lock lock(mutex_);
  for (const auto& [name, definition] : definitions_)
    for (const auto* type : definition.served)
      if (type->group == group && type->version == version && type->resource == resource)
        return type;
  return nullptr;
}

std::vector<const ResourceType*> CustomResources::types() const {
  std::shared_lock lock(mutex_);
  std::vector<const ResourceType*> out;
  for (const auto& [name, definition] : definitions_)
    out.insert(out.end(), definition.served.begin(), definition.served.end());
  return out;
}

std::uint64_t CustomResources::generation() const {
  std::shared_lock lock(mutex_);
  return generation_;
}

}  // namespace rg::sim::apply
