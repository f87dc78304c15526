// fieldValidation (Ignore, Warn, Strict) for the top level and metadata of the built-in kinds:
// kube-sim keeps no full schemas, so it knows each kind's top-level fields and ObjectMeta's, and
// reports unknown ones as the API server does -- Strict: 400 `strict decoding error: unknown
// field "..."`, Warn (the default): a `Warning: 299 - "unknown field \"...\""` header per field.
// Fields below spec/status/data/... are not checked.
#pragma once

#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/resource_table.hpp"

namespace rg::sim::apply {

enum class FieldValidation { kIgnore, kWarn, kStrict };

/// The ?fieldValidation= value (absent: Warn). Throws 400 for other values.
FieldValidation field_validation_from(std::optional<std::string_view> value);

/// The unknown fields of `object` ("foo", "metadata.bar"), for the kinds whose fields are known
/// (none for others).
std::vector<std::string> unknown_fields(const ResourceType& type,
                                        const boost::json::object& object);

/// Applies `mode` to `object`: throws 400 under Strict when there are unknown fields, returns
/// the Warning header values under Warn, nothing under Ignore.
std::vector<std::string> validate_fields(FieldValidation mode, const ResourceType& type,
                                         const boost::json::object& object);

}  // namespace rg::sim::apply
