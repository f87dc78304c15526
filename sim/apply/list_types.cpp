// The list and struct merge table (see list_types.hpp).
#include "sim/apply/list_types.hpp"

namespace rg::sim::apply {
namespace {

ListType keyed(std::vector<std::string_view> keys) {
  ListType type;
  type.kind = ListKind::kMap;
  type.merge_key = keys.front();
  type.keys = std::move(keys);
  return type;
}

ListType ports(std::string_view number_field) {
  ListType type = keyed({number_field, "protocol"});
  type.defaulted_key = "protocol";
  type.key_default = "TCP";
  return type;
}

}  // namespace

ListType list_type(std::string_view kind, std::span<const std::string> path) {
  if (path.empty()) return {};
  const std::string_view field = path.back();
  const std::string_view parent = path.size() >= 2 ? std::string_view(path[path.size() - 2]) : "";
  if (field == "containers" || field == "initContainers" || field == "ephemeralContainers" ||
      field == "volumes" || field == "imagePullSecrets" || field == "env" ||
      field == "resourceClaims")
    return keyed({"name"});
  if (field == "ports")
    return kind == "Service" && parent == "spec" ? ports("port") : ports("containerPort");
  if (field == "volumeMounts") return keyed({"mountPath"});
  if (field == "volumeDevices") return keyed({"devicePath"});
  if (field == "hostAliases" || field == "podIPs" || field == "hostIPs") return keyed({"ip"});
  if (field == "conditions" || field == "addresses") return keyed({"type"});
  if (field == "ownerReferences" && parent == "metadata") return keyed({"uid"});
  if (field == "finalizers" && parent == "metadata") {
    ListType type;
    type.kind = ListKind::kSet;
    return type;
  }
  return {};
}

bool is_atomic_struct(std::string_view kind, std::span<const std::string> path) {
  (void)kind;
  if (path.empty()) return false;
  const std::string_view field = path.back();
  // metav1.LabelSelector is +structType=atomic wherever it is used, and so is a Service's
  // spec.selector map (+mapType=atomic).
  return field == "selector" || field == "labelSelector" || field == "namespaceSelector" ||
         field == "roleRef";
}

}  // namespace rg::sim::apply
