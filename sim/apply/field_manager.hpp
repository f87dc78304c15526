// FieldManager: metadata.managedFields as the API server keeps them -- which manager owns
// which fields, recorded on every write (operation Update for create/update/patch, the
// writer's fieldManager or User-Agent program name) -- and server-side apply (operation Apply):
// merge an apply configuration into the live object, prune what the manager stopped applying,
// and refuse to change fields other managers own (409 with the conflicting fields) unless
// forced, in which case the others lose them.
#pragma once

#include <boost/json/object.hpp>

#include <string>
#include <string_view>

namespace rg::sim::apply {

/// What is written and by whom.
struct WriteTarget {
  std::string_view kind;    ///< "Deployment"
  std::string api_version;  ///< "apps/v1"
  bool has_status_subresource = false;
  std::string_view subresource;  ///< "", "status", "scale"
  std::string_view manager;      ///< the field manager
};

/// Records a create/update/patch in `after`'s metadata.managedFields: the writer's Update entry
/// gains the fields it changed and loses those it removed; other managers lose changed and
/// removed fields. `before` is null for a create. managedFields sent in `after` that differ
/// from `before`'s replace them first (clients reset or migrate ownership that way). Entries
/// the write does not touch are kept as they are (once in the encoded form).
void record_update(const boost::json::object* before, boost::json::object& after,
                   const WriteTarget& target);

/// Server-side apply of `configuration` onto `live` (for a create, an object holding only
/// apiVersion, kind and metadata name/namespace). Returns the merged object with its
/// managedFields. Throws ApiError 409 Conflict (reason Conflict, causes FieldManagerConflict)
/// when the apply changes fields other managers own, unless `force`.
boost::json::object server_side_apply(const boost::json::object& live,
                                      const boost::json::object& configuration,
                                      const WriteTarget& target, bool force);

}  // namespace rg::sim::apply
