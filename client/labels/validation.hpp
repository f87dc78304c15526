// Kubernetes' validation of label keys and values (apimachinery's IsQualifiedName and
// IsValidLabelValue), shared by the label selector parser and anything that writes labels.
#pragma once

#include <string>
#include <string_view>

namespace rg::client {

/// Why `key` is not a valid label key ("prefix/name" with an optional DNS-1123 subdomain
/// prefix of at most 253 characters and a name of at most 63), or empty when it is valid.
std::string label_key_problem(std::string_view key);

/// Why `value` is not a valid label value (at most 63 characters, alphanumeric at both ends,
/// '-', '_' and '.' inside; empty is valid), or empty when it is valid.
std::string label_value_problem(std::string_view value);

/// Why `name` is not a lowercase RFC 1123 subdomain (at most 253 characters), or empty.
std::string dns1123_subdomain_problem(std::string_view name);

}  // namespace rg::client
