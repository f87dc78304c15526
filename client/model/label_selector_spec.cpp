// Schema of LabelSelectorSpec (metav1.LabelSelector).
#include "client/model/label_selector_spec.hpp"

#include "client/model/schema.hpp"

namespace rg::client::detail {

const StructDesc& schema_of(Tag<LabelSelectorRequirement>) {
  static constexpr FieldDesc fields[] = {
      field<&LabelSelectorRequirement::key>("key"),
      field<&LabelSelectorRequirement::operator_>("operator"),
      field<&LabelSelectorRequirement::values>("values"),
  };
  static constexpr StructDesc desc{"LabelSelectorRequirement", fields};
  return desc;
}

const StructDesc& schema_of(Tag<LabelSelectorSpec>) {
  static constexpr FieldDesc fields[] = {
      field<&LabelSelectorSpec::match_labels>("matchLabels"),
      field<&LabelSelectorSpec::match_expressions>("matchExpressions"),
  };
  static constexpr StructDesc desc{"LabelSelector", fields};
  return desc;
}

}  // namespace rg::client::detail
