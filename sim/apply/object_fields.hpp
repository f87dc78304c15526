// The schema-aware walks of an object that server-side apply and managedFields need: the field
// set an object (or an apply configuration) sets, the fields that differ between two versions,
// the merge of an apply configuration into the live object, and removal of fields. Lists and
// atomic structs follow sim/apply/list_types; everything else is a granular map.
#pragma once

#include <boost/json/object.hpp>

#include <string>
#include <string_view>

#include "sim/apply/field_set.hpp"

namespace rg::sim::apply {

/// The fields `object` sets (structured-merge-diff's ToFieldSet), without the fields nobody owns
/// (apiVersion, kind, metadata.name/namespace/uid/resourceVersion/generation/
/// creationTimestamp/managedFields/...). Maps with members are not members themselves; empty
/// maps, scalars, atomic lists and structs, list items and set values are.
FieldSet fields_of(const boost::json::object& object, std::string_view kind);

/// What changed from `before` to `after`: `changed` holds modified and added fields (an added
/// map or list item is a member together with what it contains), `removed` what is gone.
struct Comparison {
  FieldSet changed;
  FieldSet removed;
};
Comparison compare(const boost::json::object& before, const boost::json::object& after,
                   std::string_view kind);

/// The first item of a keyed list in an apply configuration that does not carry the list's key
/// (or is not an object), as structured-merge-diff words it: `.spec.template.spec.containers:
/// element 0: associative list with keys has an element that omits key field "name" (and
/// doesn't have default value)`; empty when every item is keyed. Merged, such an item could not
/// be found again: every apply would append it anew.
std::string unkeyed_list_item(const boost::json::object& configuration, std::string_view kind);

/// Merges an apply configuration into the live object: maps merge by key, keyed lists by their
/// keys (live order kept, new items appended), sets by value; atomic lists, atomic structs and
/// scalars take the configuration's value; a null in the configuration removes the field.
boost::json::object merge_configuration(boost::json::object live,
                                        const boost::json::object& configuration,
                                        std::string_view kind);

/// Removes from `object` each member of `fields` that it holds (a field, a keyed list item, a
/// set value); maps and lists left empty by a removal are removed too (typed objects omit
/// them).
void remove_fields(boost::json::object& object, const FieldSet& fields, std::string_view kind);

}  // namespace rg::sim::apply
