// The OpenSSL context for talking to one API server, built from TlsConfig: trusted CAs (the
// given bundle, else the system's), optional client certificate for mutual TLS, TLS >= 1.2.
#pragma once

#include <boost/asio/ssl/context.hpp>

#include <memory>

#include "client/config/rest_config.hpp"

namespace rg::client {

/// Throws std::invalid_argument naming the PEM that could not be loaded.
std::shared_ptr<boost::asio::ssl::context> make_tls_context(const TlsConfig& tls);

}  // namespace rg::client
