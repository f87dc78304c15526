// required_type: a resource sim/auth cannot work without (serviceaccounts, the RBAC kinds), looked
// up once at construction.
#pragma once

#include <fmt/format.h>

#include <stdexcept>
#include <string_view>

#include "sim/resource_table.hpp"

namespace rg::sim::auth {

/// The v1 resource `resource` of `group`; throws std::logic_error when the table lacks it.
inline const ResourceType& required_type(const ResourceTable& table, std::string_view group,
                                         std::string_view resource) {
  const auto* type = table.find(group, "v1", resource);
  if (type == nullptr)
    throw std::logic_error(fmt::format("the resource table lacks {}/v1 {}", group, resource));
  return *type;
}

inline constexpr std::string_view kRbacGroup = "rbac.authorization.k8s.io";

}  // namespace rg::sim::auth
