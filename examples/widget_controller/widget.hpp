// Widget (example.com/v1): the custom resource of the widget controller, declared as a typed
// projection with the schema mechanism client/model uses for built-in kinds -- the struct here,
// its JSON keys in widget.cpp. The informer decodes Widgets straight into it; to_json() encodes.
//
//   apiVersion: example.com/v1
//   kind: Widget
//   metadata: {name: w1, namespace: shop}
//   spec: {color: blue, size: 3}
//   status: {observedGeneration: 1, configMap: w1-widget, conditions: [{type: Ready, ...}]}
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "client/model/condition.hpp"
#include "client/model/object_meta.hpp"
#include "client/rest/resource.hpp"

namespace example {

struct WidgetSpec {
  std::string color;
  std::int32_t size = 0;
};

struct WidgetStatus {
  std::int64_t observed_generation = 0;  ///< the metadata.generation the status describes
  std::string config_map;                ///< the name of the Widget's ConfigMap
  std::vector<rg::client::Condition> conditions;
  friend bool operator==(const WidgetStatus&, const WidgetStatus&) = default;
};

struct Widget {
  rg::client::ObjectMeta metadata;
  WidgetSpec spec;
  WidgetStatus status;
};

// Found by argument-dependent lookup, like the built-in kinds' (client/model/schema_fwd.hpp).
const rg::client::StructDesc& schema_of(rg::client::Tag<WidgetSpec>);
const rg::client::StructDesc& schema_of(rg::client::Tag<WidgetStatus>);
const rg::client::StructDesc& schema_of(rg::client::Tag<Widget>);

/// widgets.example.com/v1, namespaced: the collection of every namespace (`.in(ns)` for one).
rg::client::ResourceRef widgets();

}  // namespace example
