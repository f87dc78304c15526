// ListWatchScope: what an informer lists and watches -- a resource (in a namespace or all of
// them) and the label and field selectors every LIST and WATCH of it carries.
#pragma once

#include <string>

#include "client/rest/resource.hpp"

namespace rg::informer {

struct ListWatchScope {
  client::ResourceRef resource;  ///< e.g. resources::pods() or resources::pods().in("shop")
  std::string label_selector;
  std::string field_selector;
};

}  // namespace rg::informer
