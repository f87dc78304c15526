// The taint policy and its patch (see suspect_node_taints.hpp).
#include "operator/suspect_node_taints.hpp"

#include <boost/json.hpp>

#include <algorithm>

namespace rg::op {
namespace json = boost::json;

std::vector<TaintChange> plan_suspect_taints(const std::vector<NodeTaintFacts>& nodes,
                                             TaintPolicy policy) {
  std::vector<TaintChange> changes;
  for (const NodeTaintFacts& node : nodes) {
    const bool wanted = policy.enabled && !policy.surges_suppressed && node.suspect;
    if (wanted != node.tainted) changes.push_back({node.name, wanted});
  }
  return changes;
}

bool has_suspect_taint(const client::Node& node) {
  return std::any_of(node.spec.taints.begin(), node.spec.taints.end(),
                     [](const client::Taint& t) { return t.key == kSuspectTaintKey; });
}

namespace {

bool is_ours(const json::value& taint) {
  const auto* key = taint.is_object() ? taint.as_object().if_contains("key") : nullptr;
  return key != nullptr && key->is_string() && key->as_string() == kSuspectTaintKey;
}

}  // namespace

std::optional<json::array> suspect_taint_patch(const json::value& node, bool add,
                                               std::string_view time_added) {
  const json::object& object = node.as_object();
  const json::value* rv = nullptr;
  if (const auto* meta = object.if_contains("metadata"); meta && meta->is_object())
    rv = meta->as_object().if_contains("resourceVersion");
  json::array taints;
  if (const auto* spec = object.if_contains("spec"); spec && spec->is_object()) {
    if (const auto* existing = spec->as_object().if_contains("taints");
        existing && existing->is_array())
      taints = existing->as_array();
  }
  const auto ours = std::find_if(taints.begin(), taints.end(), is_ours);
  if (add == (ours != taints.end())) return std::nullopt;
  if (add) {
    taints.push_back(json::object{
        {"key", kSuspectTaintKey}, {"effect", kSuspectTaintEffect}, {"timeAdded", time_added}});
  } else {
    taints.erase(std::remove_if(taints.begin(), taints.end(), is_ours), taints.end());
  }
  json::array patch;
  if (rv != nullptr)
    patch.push_back({{"op", "test"}, {"path", "/metadata/resourceVersion"}, {"value", *rv}});
  patch.push_back({{"op", "add"}, {"path", "/spec/taints"}, {"value", std::move(taints)}});
  return patch;
}

}  // namespace rg::op
