// Checking a PEM client certificate and private key before they are used, so a bad pair from a
// credential plugin is reported where it came from instead of as a failed TLS handshake later.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace rg::client {

/// What is wrong with the pair, or nullopt when `cert_pem` starts with a parseable certificate,
/// `key_pem` holds a parseable private key and the key belongs to the certificate. The message
/// names the fields as `cert_name` and `key_name` (e.g. "clientCertificateData").
std::optional<std::string> key_pair_problem(std::string_view cert_pem, std::string_view key_pem,
                                            std::string_view cert_name, std::string_view key_name);

}  // namespace rg::client
