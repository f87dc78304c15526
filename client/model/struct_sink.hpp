// StructSink: decodes one JSON object straight into a typed projection, driven by its schema,
// skipping every key the schema does not keep (managedFields, volumes...) without building it.
#pragma once

#include <memory>

#include "client/model/schema_fwd.hpp"
#include "client/model/value_sink.hpp"

namespace rg::client::detail {

/// A sink decoding into objects described by `schema` (the target of start() is such an object,
/// default-constructed). The root must be a JSON object; required fields must be present.
std::unique_ptr<ValueSink> make_struct_sink(const StructDesc& schema);

}  // namespace rg::client::detail
