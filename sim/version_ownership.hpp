// Field ownership across the served versions of one resource: managedFields entries keep the
// apiVersion and field paths of the request that wrote them, so after a write through one
// version the managers of the others lose what the write changed as their version sees it
// (structured-merge-diff compares each manager's fields in the manager's own version).
#pragma once

#include <boost/json/object.hpp>

#include <string_view>

#include "sim/resource_table.hpp"

namespace rg::sim {

/// Takes from `after`'s managedFields entries recorded through `other` (a served version of the
/// written resource) the fields that changed or were removed from `before` to `after` (both in
/// the storage version), compared in `other`'s version; entries left empty are dropped.
/// `subresource` limits what the write could change, as for the writer's own entry ("status":
/// status only, "": everything but status when the resource has a status subresource).
void release_changed_fields(const ResourceType& other, std::string_view subresource,
                            const boost::json::object& before, boost::json::object& after);

}  // namespace rg::sim
