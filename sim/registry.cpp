// Registry: create/update/delete rules per resource (see registry.hpp).
#include "sim/registry.hpp"

#include <fmt/format.h>
#include <boost/json.hpp>

#include <algorithm>

#include "client/labels/label_selector.hpp"
#include "sim/api_error.hpp"

namespace rg::sim {
namespace {

namespace json = boost::json;

json::object& object_at(json::object& parent, std::string_view key) {
  auto& value = parent[key];
  if (!value.is_object()) value = json::object();
  return value.get_object();
}

std::string string_at(const json::object& object, std::string_view key) {
  const auto* value = object.if_contains(key);
  return value != nullptr && value->is_string() ? std::string(value->get_string()) : std::string();
}

const json::object* object_if(const json::object& parent, std::string_view key) {
  const auto* value = parent.if_contains(key);
  return value != nullptr ? value->if_object() : nullptr;
}

bool is_dns_subdomain(std::string_view name) {
  if (name.empty() || name.size() > 253) return false;
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!alnum(name.front()) || !alnum(name.back())) return false;
  for (char c : name)
    if (!alnum(c) && c != '-' && c != '.') return false;
  return true;
}

void set_default(json::object& object, std::string_view key, json::value value) {
  if (!object.contains(key)) object[key] = std::move(value);
}

// Defaults the API server applies (KK pkg/apis/*/v1/defaults.go), for the fields controllers
// and kubectl read.
void apply_defaults(const ResourceType& type, json::object& object) {
  if (type.group == "apps" && (type.resource == "deployments" || type.resource == "replicasets" ||
                               type.resource == "statefulsets")) {
    auto& spec = object_at(object, "spec");
    set_default(spec, "replicas", 1);
    set_default(spec, "revisionHistoryLimit", 10);
    if (type.resource == "deployments") {
      set_default(spec, "progressDeadlineSeconds", 600);
      auto& strategy = object_at(spec, "strategy");
      set_default(strategy, "type", "RollingUpdate");
      if (string_at(strategy, "type") == "RollingUpdate") {
        auto& rolling = object_at(strategy, "rollingUpdate");
        set_default(rolling, "maxUnavailable", "25%");
        set_default(rolling, "maxSurge", "25%");
      }
    }
  }
  if (type.group.empty() && type.resource == "pods") {
    auto& spec = object_at(object, "spec");
    set_default(spec, "restartPolicy", "Always");
    set_default(spec, "terminationGracePeriodSeconds", 30);
    set_default(spec, "dnsPolicy", "ClusterFirst");
    set_default(spec, "serviceAccountName", "default");
    set_default(spec, "schedulerName", "default-scheduler");
    set_default(spec, "enableServiceLinks", true);
    set_default(spec, "priority", 0);
    // DefaultTolerationSeconds admission: tolerate not-ready/unreachable for 300 s.
    auto& tolerations = spec["tolerations"];
    if (!tolerations.is_array()) tolerations = json::array();
    for (std::string_view key :
         {"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"}) {
      bool present = false;
      for (const auto& toleration : tolerations.get_array())
        if (toleration.is_object() && string_at(toleration.get_object(), "key") == key &&
            string_at(toleration.get_object(), "effect") == "NoExecute")
          present = true;
      if (!present)
        tolerations.get_array().push_back(json::object{{"key", key},
                                                       {"operator", "Exists"},
                                                       {"effect", "NoExecute"},
                                                       {"tolerationSeconds", 300}});
    }
  }
}

// Status a create may not set (PrepareForCreate of the workload and pod strategies).
void reset_status_on_create(const ResourceType& type, json::object& object) {
  if (type.group == "apps" || type.group == "batch") {
    object["status"] = json::object();
  } else if (type.group.empty() && type.resource == "pods") {
    object["status"] = json::object{{"phase", "Pending"}};
  } else if (type.group.empty() && type.resource == "namespaces") {
    object["status"] = json::object{{"phase", "Active"}};
  }
}

void validate(const ResourceType& type, const json::object& object) {
  std::vector<FieldError> problems;
  const auto* metadata = object_if(object, "metadata");
  std::string name = metadata != nullptr ? string_at(*metadata, "name") : "";
  if (type.group == "apps" && type.resource != "daemonsets") {
    const auto* spec = object_if(object, "spec");
    if (spec == nullptr || object_if(*spec, "selector") == nullptr)
      problems.push_back({"FieldValueRequired", "spec.selector", "Required value"});
    if (spec != nullptr) {
      const auto* replicas = spec->if_contains("replicas");
      if (replicas != nullptr && replicas->is_int64() && replicas->get_int64() < 0)
        problems.push_back({"FieldValueInvalid", "spec.replicas",
                            fmt::format("Invalid value: {}: must be greater than or equal to 0",
                                        replicas->get_int64())});
    }
  }
  if (!problems.empty()) throw errors::invalid(type.group, type.kind, name, problems);
}

bool spec_changed(const json::object& before, const json::object& after) {
  const auto* a = before.if_contains("spec");
  const auto* b = after.if_contains("spec");
  if (a == nullptr || b == nullptr) return a != b;
  return *a != *b;
}

std::string selector_string(const json::object& deployment) {
  const auto* spec = object_if(deployment, "spec");
  if (spec == nullptr) return {};
  const auto* selector = spec->if_contains("selector");
  if (selector == nullptr) return {};
  try {
    return client::LabelSelector::from_json(*selector).to_string();
  } catch (const std::exception&) {
    return {};
  }
}

}  // namespace

std::string manager_from_user_agent(std::string_view user_agent) {
  return std::string(user_agent.substr(0, user_agent.find('/')));
}

Registry::Registry(Store& store, const ResourceTable& table) : store_(store), table_(table) {}

void Registry::bootstrap() {
  const auto* namespaces = table_.find("", "v1", "namespaces");
  for (std::string_view name : {"default", "kube-system", "kube-public", "kube-node-lease"}) {
    if (store_.get(*namespaces, "", name)) continue;
    json::object ns{
        {"kind", "Namespace"},
        {"apiVersion", "v1"},
        {"metadata", json::object{{"name", name},
                                  {"labels", json::object{{"kubernetes.io/metadata.name", name}}}}},
        {"spec", json::object{{"finalizers", json::array{"kubernetes"}}}}};
    create(*namespaces, "", std::move(ns), {"kube-apiserver"});
  }
}

json::object Registry::view_of(const StoredObject& object, std::string_view subresource) const {
  json::object full = object.parse();
  if (subresource != "scale") return full;
  const auto& metadata = full.at("metadata").as_object();
  json::object scale_meta;
  for (auto field : {"name", "namespace", "uid", "resourceVersion", "creationTimestamp"})
    if (const auto* value = metadata.if_contains(field)) scale_meta[field] = *value;
  json::object spec;
  json::object status;
  if (const auto* s = object_if(full, "spec"); s != nullptr)
    if (const auto* replicas = s->if_contains("replicas");
        replicas != nullptr && replicas->is_number() && replicas->to_number<std::int64_t>() != 0)
      spec["replicas"] = *replicas;
  std::int64_t replicas = 0;
  if (const auto* s = object_if(full, "status"); s != nullptr)
    if (const auto* r = s->if_contains("replicas"); r != nullptr && r->is_number())
      replicas = r->to_number<std::int64_t>();
  status["replicas"] = replicas;
  if (auto selector = selector_string(full); !selector.empty()) status["selector"] = selector;
  return json::object{{"kind", "Scale"},
                      {"apiVersion", "autoscaling/v1"},
                      {"metadata", std::move(scale_meta)},
                      {"spec", std::move(spec)},
                      {"status", std::move(status)}};
}

json::object Registry::get(const ResourceType& type, std::string_view namespace_,
                           std::string_view name, std::string_view subresource) const {
  auto object = store_.get(type, namespace_, name);
  if (!object) throw errors::not_found(type, name);
  return view_of(*object, subresource);
}

ObjectPtr Registry::create(const ResourceType& type, std::string_view namespace_,
                           json::object object, const WriteContext& context) {
  (void)context;
  // Keys are inserted before taking references into the object (insertion may reallocate).
  object["kind"] = type.kind;
  object["apiVersion"] = type.group_version();
  auto& metadata = object_at(object, "metadata");
  std::string name = string_at(metadata, "name");
  std::string generate_name = string_at(metadata, "generateName");
  if (type.namespaced) {
    std::string object_ns = string_at(metadata, "namespace");
    if (!object_ns.empty() && object_ns != namespace_)
      throw errors::bad_request(
          "the namespace of the provided object does not match the namespace sent on the request");
    metadata["namespace"] = namespace_;
    const auto* namespaces = table_.find("", "v1", "namespaces");
    auto ns = store_.get(*namespaces, "", namespace_);
    if (!ns) throw errors::not_found(*namespaces, namespace_);
    if (ns->body.find("\"deletionTimestamp\"") != std::string::npos)
      throw ApiError([&] {
        client::Status status;
        status.status = "Failure";
        status.code = 403;
        status.reason = "Forbidden";
        status.message = fmt::format(
            "{} \"{}\" is forbidden: unable to create new content in namespace {} because it is "
            "being terminated",
            type.group_resource(), name, namespace_);
        status.details = client::StatusDetails{name, type.group, type.resource, "", {}, 0};
        return status;
      }());
  } else {
    metadata.erase("namespace");
  }
  if (name.empty() && generate_name.empty())
    throw errors::invalid(type.group, type.kind, "",
                          {{"FieldValueRequired", "metadata.name",
                            "Required value: name or generateName is required"}});
  if (!name.empty() && !is_dns_subdomain(name))
    throw errors::invalid(
        type.group, type.kind, name,
        {{"FieldValueInvalid", "metadata.name",
          fmt::format("Invalid value: \"{}\": a lowercase RFC 1123 subdomain must consist of lower "
                      "case alphanumeric characters, '-' or '.', and must start and end with an "
                      "alphanumeric character (e.g. 'example.com', regex used for validation is "
                      "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
                      name)}});
  for (auto field : {"uid", "resourceVersion", "creationTimestamp", "deletionTimestamp",
                     "deletionGracePeriodSeconds", "selfLink"})
    metadata.erase(field);
  if (object.contains("spec")) metadata["generation"] = 1;
  reset_status_on_create(type, object);
  apply_defaults(type, object);
  validate(type, object);
  return store_.create(type, std::move(object));
}

ObjectPtr Registry::update(const ResourceType& type, std::string_view namespace_,
                           std::string_view name, std::string_view subresource,
                           const Intent& intent, const WriteContext& context) {
  (void)context;
  return store_.update(
      type, namespace_, name, [&](const StoredObject& current, json::object before) {
        json::object view = subresource == "scale" ? view_of(current, "scale") : before;
        json::object wanted = intent(std::move(view));
        auto& wanted_meta = object_at(wanted, "metadata");
        std::string rv = string_at(wanted_meta, "resourceVersion");
        if (!rv.empty() && rv != std::to_string(current.resource_version))
          throw errors::conflict(type, name);
        std::string wanted_name = string_at(wanted_meta, "name");
        if (!wanted_name.empty() && wanted_name != name)
          throw errors::bad_request(
              fmt::format("the name of the object ({}) does not match the name on the URL ({})",
                          wanted_name, name));

        json::object after;
        if (subresource == "scale") {
          after = before;
          json::value replicas = 0;
          if (const auto* spec = object_if(wanted, "spec"))
            if (const auto* r = spec->if_contains("replicas")) replicas = *r;
          object_at(after, "spec")["replicas"] = replicas;
        } else if (subresource == "status") {
          after = before;
          if (const auto* status = wanted.if_contains("status"))
            after["status"] = *status;
          else
            after.erase("status");
        } else {
          after = std::move(wanted);
          // The main resource cannot change status when a status subresource exists.
          if (type.has_status()) {
            if (const auto* status = before.if_contains("status"))
              after["status"] = *status;
            else
              after.erase("status");
          }
          auto& meta = object_at(after, "metadata");
          const auto& old_meta = before.at("metadata").as_object();
          for (auto field : {"generation", "deletionTimestamp", "deletionGracePeriodSeconds"}) {
            if (const auto* value = old_meta.if_contains(field))
              meta[field] = *value;
            else
              meta.erase(field);
          }
          apply_defaults(type, after);
        }
        if (spec_changed(before, after)) {
          auto& meta = object_at(after, "metadata");
          const auto* generation = before.at("metadata").as_object().if_contains("generation");
          std::int64_t next =
              generation != nullptr && generation->is_int64() ? generation->get_int64() + 1 : 1;
          meta["generation"] = next;
        }
        validate(type, after);
        return after;
      });
}

DeleteResult Registry::remove(const ResourceType& type, std::string_view namespace_,
                              std::string_view name, const DeleteOptions& options) {
  if (type.group.empty() && type.resource == "namespaces" &&
      (name == "default" || name == "kube-system" || name == "kube-public")) {
    client::Status status;
    status.status = "Failure";
    status.code = 403;
    status.reason = "Forbidden";
    status.message =
        fmt::format("namespaces \"{}\" is forbidden: this namespace may not be deleted", name);
    status.details = client::StatusDetails{std::string(name), "", "namespaces", "", {}, 0};
    throw ApiError(std::move(status));
  }
  auto check = [&](const StoredObject& current) {
    if (options.precondition_uid && *options.precondition_uid != current.uid)
      throw errors::conflict_message(
          type, name,
          fmt::format("Precondition failed: UID in precondition: {}, UID in object meta: {}",
                      *options.precondition_uid, current.uid));
    if (options.precondition_resource_version &&
        *options.precondition_resource_version != std::to_string(current.resource_version))
      throw errors::conflict_message(
          type, name,
          fmt::format("Precondition failed: ResourceVersion in precondition: {}, ResourceVersion "
                      "in object meta: {}",
                      *options.precondition_resource_version, current.resource_version));
  };
  auto current = store_.get(type, namespace_, name);
  if (!current) throw errors::not_found(type, name);
  check(*current);
  if (current->body.find("\"finalizers\":[\"") != std::string::npos) {
    // Graceful: mark it; whoever owns the finalizers removes them, and the store deletes it then.
    auto marked =
        store_.update(type, namespace_, name, [&](const StoredObject& now, json::object object) {
          check(now);
          auto& metadata = object_at(object, "metadata");
          if (!metadata.contains("deletionTimestamp")) {
            metadata["deletionTimestamp"] = rfc3339_now();
            metadata["deletionGracePeriodSeconds"] = 0;
          }
          return object;
        });
    if (store_.get(type, namespace_, name)) return {marked, false};
    return {marked, true};
  }
  if (type.group.empty() && type.resource == "namespaces") {
    for (const auto& other : table_.types()) {
      if (!other.namespaced) continue;
      const auto contents = store_.list(other, name);
      for (const auto& item : contents->items) {
        try {
          store_.remove(other, item->namespace_, item->name);
        } catch (const ApiError&) {
          // Already gone: a cascade got there first.
        }
      }
    }
  }
  auto deleted = store_.remove(type, namespace_, name, check);
  if (options.propagation_policy != "Orphan") cascade(deleted);
  return {deleted, true};
}

void Registry::cascade(const ObjectPtr& owner) {
  // The garbage collector's job, done at once: delete what the owner owned. Only the kinds
  // that own objects in a cluster are followed, and only the kinds they own are scanned.
  static const std::vector<std::string_view> kOwners = {
      "deployments", "replicasets", "statefulsets", "daemonsets", "jobs", "cronjobs", "nodes"};
  static const std::vector<std::string_view> kOwned = {"replicasets", "pods", "jobs", "leases"};
  if (std::find(kOwners.begin(), kOwners.end(), owner->type->resource) == kOwners.end()) return;
  for (const auto& type : table_.types()) {
    if (std::find(kOwned.begin(), kOwned.end(), type.resource) == kOwned.end()) continue;
    if (!owner->namespace_.empty() && !type.namespaced) continue;
    const auto candidates = store_.list(type, owner->namespace_);
    for (const auto& item : candidates->items) {
      if (item->body.find(owner->uid) == std::string::npos) continue;
      auto object = item->parse();
      bool owned = false;
      if (const auto* refs = object.at("metadata").as_object().if_contains("ownerReferences"))
        if (refs->is_array())
          for (const auto& ref : refs->get_array())
            if (ref.is_object() && string_at(ref.get_object(), "uid") == owner->uid) owned = true;
      if (!owned) continue;
      try {
        auto gone = store_.remove(type, item->namespace_, item->name);
        cascade(gone);
      } catch (const ApiError&) {
        // Deleted concurrently.
      }
    }
  }
}

void Registry::bind(std::string_view namespace_, std::string_view pod,
                    const json::object& binding) {
  const auto* pods = table_.find("", "v1", "pods");
  std::string node;
  if (const auto* target = object_if(binding, "target")) node = string_at(*target, "name");
  if (node.empty())
    throw errors::invalid("", "Binding", pod,
                          {{"FieldValueRequired", "target.name", "Required value"}});
  store_.update(*pods, namespace_, pod, [&](const StoredObject&, json::object object) {
    auto& spec = object_at(object, "spec");
    if (!string_at(spec, "nodeName").empty())
      throw errors::conflict_message(*pods, pod,
                                     fmt::format("pod {} is already assigned to node \"{}\"", pod,
                                                 string_at(spec, "nodeName")));
    spec["nodeName"] = node;
    return object;
  });
}

}  // namespace rg::sim
