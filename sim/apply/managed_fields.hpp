// metadata.managedFields as JSON: its entries parsed, and encoded as the API server writes them
// (fixed member order, entries sorted), plus the check that an entry already is in that form,
// which lets a write keep the entries it does not touch as they are instead of parsing and
// encoding every entry of the object again.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <vector>

#include "sim/apply/field_set.hpp"

namespace rg::sim::apply {

/// One metadata.managedFields entry.
struct ManagedFieldsEntry {
  std::string manager;
  std::string operation;  ///< "Apply" or "Update"
  std::string api_version;
  std::string time;
  std::string subresource;
  FieldSet fields;
};

/// Two entries are the same owner: Apply entries by manager (and subresource), Update entries
/// also by apiVersion (apimachinery's BuildManagerIdentifier).
bool same_owner(const ManagedFieldsEntry& a, const ManagedFieldsEntry& b);

/// An entry's manager, operation, apiVersion, time and subresource ("" when absent or not a
/// string); its fields are left empty.
ManagedFieldsEntry owner_of(const boost::json::object& item);
/// One entry; nullopt for what is none: not an object, without fieldsV1, an operation other
/// than Apply or Update, or fieldsV1 that is not a field set.
std::optional<ManagedFieldsEntry> entry_of(const boost::json::value& item);
/// The entries of an object's metadata.managedFields (entries that do not parse are dropped).
std::vector<ManagedFieldsEntry> managed_fields_of(const boost::json::object& object);

/// The JSON of one entry, in `storage`.
boost::json::object encode_entry(const ManagedFieldsEntry& entry,
                                 const boost::json::storage_ptr& storage = {});
/// True when `item` is exactly encode_entry(*entry_of(item)) and its fields are not empty, as
/// every entry kube-sim wrote is.
bool is_encoded_entry(const boost::json::value& item);
/// Orders encoded entries as the API server does: by operation, time, manager, apiVersion and
/// subresource.
void sort_entries(boost::json::array& items);
/// Sets `object`'s metadata.managedFields to `entries`, encoded and sorted; entries without
/// fields are dropped, and managedFields with them when none is left.
void store_entries(boost::json::object& object, const std::vector<ManagedFieldsEntry>& entries);

}  // namespace rg::sim::apply
