// LabelSelectorSpec: metav1.LabelSelector as data (matchLabels and matchExpressions), as found in
// Deployment and ReplicaSet specs. Parsing and matching live in client/labels/ (LabelSelector).
#pragma once

#include <string>
#include <vector>

#include "client/labels/labels.hpp"
#include "client/model/schema_fwd.hpp"

namespace rg::client {

struct LabelSelectorRequirement {
  std::string key;
  std::string operator_;  ///< In, NotIn, Exists, DoesNotExist
  std::vector<std::string> values;
};

struct LabelSelectorSpec {
  Labels match_labels;
  std::vector<LabelSelectorRequirement> match_expressions;
};

namespace detail {
const StructDesc& schema_of(Tag<LabelSelectorSpec>);
}  // namespace detail

}  // namespace rg::client
