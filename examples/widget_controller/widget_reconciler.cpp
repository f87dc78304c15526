// The widget controller's reconcile (see widget_reconciler.hpp).
#include "widget_reconciler.hpp"

#include <boost/json/serialize.hpp>

#include <chrono>
#include <utility>

#include "client/model/codec.hpp"
#include "informer/object_key.hpp"

namespace example {

namespace asio = boost::asio;
using rg::client::ConfigMap;

namespace {

rg::client::ObjectReference reference_to(const Widget& widget) {
  const auto& meta = widget.metadata;
  return {.kind = "Widget",
          .namespace_ = std::string(meta.namespace_),
          .name = std::string(meta.name),
          .uid = std::string(meta.uid),
          .api_version = "example.com/v1",
          .resource_version = std::string(meta.resource_version)};
}

bool controlled_by(const ConfigMap& config_map, const Widget& widget) {
  return rg::informer::meta::controller_uid(config_map) == widget.metadata.uid;
}

}  // namespace

ConfigMap desired_config_map(const Widget& widget) {
  ConfigMap config_map;
  config_map.metadata.name = std::string(widget.metadata.name) + "-widget";
  config_map.metadata.namespace_ = widget.metadata.namespace_;
  config_map.metadata.owner_references = {{.api_version = "example.com/v1",
                                           .kind = "Widget",
                                           .name = widget.metadata.name,
                                           .uid = widget.metadata.uid,
                                           .controller = true,
                                           .block_owner_deletion = true}};
  config_map.data = {{"color", widget.spec.color}, {"size", std::to_string(widget.spec.size)}};
  return config_map;
}

asio::awaitable<void> WidgetReconciler::reconcile(const std::string& key) {
  const rg::informer::ObjectName object_name = rg::informer::split_meta_namespace_key(key);
  const std::string& namespace_ = object_name.namespace_;
  const auto widget = widgets_.namespace_(namespace_).get(object_name.name);
  if (!widget) co_return;  // deleted: the garbage collector deletes its ConfigMap (ownerReference)

  ConfigMap desired = desired_config_map(*widget);
  const std::string config_map_name(desired.metadata.name);
  const auto current = config_maps_.namespace_(namespace_).get(config_map_name);
  const auto config_maps = rg::client::resources::config_maps().in(namespace_);
  rg::client::Condition ready{.type = "Ready",
                              .status = "True",
                              .observed_generation = widget->metadata.generation,
                              .reason = "ConfigMapInSync",
                              .message = "ConfigMap " + config_map_name + " holds the spec"};
  if (!current) {
    const boost::json::value object = rg::client::to_json(desired);
    co_await client_.create(config_maps, object);
    events_.record(reference_to(*widget), "Normal", "Created",
                   "created ConfigMap " + config_map_name);
  } else if (!controlled_by(*current, *widget)) {
    ready.status = "False";
    ready.reason = "ConfigMapExists";
    ready.message = "ConfigMap " + config_map_name + " exists and is not controlled by this Widget";
    events_.record(reference_to(*widget), "Warning", ready.reason, ready.message);
  } else if (current->data != desired.data) {
    // The whole object with its resourceVersion: if the cache was stale, the update is a
    // Conflict and the key comes back with backoff.
    ConfigMap updated = *current;
    updated.data = std::move(desired.data);
    const boost::json::value object = rg::client::to_json(updated);
    co_await client_.update(config_maps, object);
    events_.record(reference_to(*widget), "Normal", "Updated",
                   "updated ConfigMap " + config_map_name);
  }

  WidgetStatus status = widget->status;
  status.observed_generation = widget->metadata.generation;
  status.config_map = config_map_name;
  const auto now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
  rg::client::set_status_condition(status.conditions, std::move(ready), now);
  if (status != widget->status) co_await write_status(*widget, status);
}

// A merge patch of the status subresource: the spec and metadata are not the controller's to
// write there, and a Widget whose spec moved on meanwhile is reconciled again (its update event).
// (Arguments of a co_awaited call are named locals: g++ 12 mishandles temporaries there.)
asio::awaitable<void> WidgetReconciler::write_status(const Widget& widget,
                                                     const WidgetStatus& status) {
  const auto resource = widgets().in(widget.metadata.namespace_).sub("status");
  const std::string name(widget.metadata.name);
  const boost::json::object patch{{"status", rg::client::to_json(status)}};
  std::string body = boost::json::serialize(patch);
  co_await client_.patch(resource, name, rg::client::PatchType::kMerge, std::move(body));
}

}  // namespace example
