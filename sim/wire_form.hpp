// The wire form: an object as the API server writes it -- decoded into its k8s.io/api Go type
// and encoded by encoding/json. Fields without omitempty are always present (with "", 0, false,
// null or {} when unset), omitempty fields are dropped when empty, omitzero ones when zero
// (sim/serialization_facts.md). kube-sim brings every stored object of a built-in kind into
// this form when it is written, so reads serve the stored bytes as they are.
#pragma once

#include <boost/json/object.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "sim/wire_types.hpp"

namespace rg::sim {

/// The Go type of a kind kube-sim stores (`group` "" for core), or null (custom resources).
const wire::Type* wire_type(std::string_view group, std::string_view version,
                            std::string_view kind);

/// Rewrites `object` (of `type`) in place into the wire form. Fields the type does not declare
/// are left as they are. With `changes`, each change is described there ("spec.nodeName:
/// absent, written \"\""), for checks and tests.
void to_wire_form(const wire::Type& type, boost::json::object& object,
                  std::vector<std::string>* changes = nullptr);

/// What keeps `object` (a full object with kind and apiVersion, or a list item of `kind`) from
/// being in the wire form: empty when it conforms, or when its kind has no wire type.
std::vector<std::string> wire_form_violations(const boost::json::object& object,
                                              std::string_view api_version = {},
                                              std::string_view kind = {});

}  // namespace rg::sim
