// The JSON keys of the Widget projection (widget.hpp).
#include "widget.hpp"

#include "client/model/schema.hpp"

namespace example {

using rg::client::field;
using rg::client::FieldDesc;
using rg::client::StructDesc;
using rg::client::Tag;

const StructDesc& schema_of(Tag<WidgetSpec>) {
  static constexpr FieldDesc fields[] = {
      field<&WidgetSpec::color>("color"),
      field<&WidgetSpec::size>("size"),
  };
  static constexpr StructDesc desc{"WidgetSpec", fields};
  return desc;
}

const StructDesc& schema_of(Tag<WidgetStatus>) {
  static constexpr FieldDesc fields[] = {
      field<&WidgetStatus::observed_generation>("observedGeneration"),
      field<&WidgetStatus::config_map>("configMap"),
      field<&WidgetStatus::conditions>("conditions"),
  };
  static constexpr StructDesc desc{"WidgetStatus", fields};
  return desc;
}

const StructDesc& schema_of(Tag<Widget>) {
  static constexpr FieldDesc fields[] = {
      field<&Widget::metadata>("metadata", true),
      field<&Widget::spec>("spec"),
      field<&Widget::status>("status"),
  };
  static constexpr StructDesc desc{"Widget", fields, "example.com/v1", "Widget"};
  return desc;
}

rg::client::ResourceRef widgets() { return {"example.com", "v1", "widgets", true, "", ""}; }

}  // namespace example
