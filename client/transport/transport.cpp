// Transport: building the wire request, picking a connection (and the TLS context of the current
// client certificate), the one stale-connection replay, and reading the response header into a
// BodyReader.
#include "client/transport/transport.hpp"

#include <mutex>
#include <stdexcept>

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>

#include "client/transport/connection_pool.hpp"
#include "client/transport/response_state.hpp"
#include "client/transport/server_address.hpp"
#include "client/transport/tls_context.hpp"
#include "client/version.hpp"

namespace rg::client {

namespace asio = boost::asio;
namespace http = boost::beast::http;

namespace {

// Kubernetes response headers are small, but Warning headers can add up.
constexpr std::uint32_t kHeaderLimit = 256 * 1024;

}  // namespace

struct Transport::Impl {
  ServerAddress address;
  std::string server_name;  // SNI and the name the certificate must match
  TlsConfig tls_config;
  // Asked for a client certificate before each connection is picked; null when there is no TLS,
  // no AuthProvider, or a static client certificate (which wins, as in client-go).
  std::shared_ptr<AuthProvider> certificate_source;
  std::shared_ptr<ConnectionPool> pool;

  std::mutex tls_mutex;
  std::shared_ptr<asio::ssl::context> tls;  // for `tls_certificate`; guarded by tls_mutex
  std::shared_ptr<const ClientCertificate> tls_certificate;

  // The TLS context new and reused connections must have: the one for the AuthProvider's
  // current certificate, rebuilt when that certificate rotates.
  asio::awaitable<std::shared_ptr<asio::ssl::context>> current_tls() {
    if (!certificate_source) co_return tls;
    auto certificate = co_await certificate_source->client_certificate();
    std::lock_guard lock(tls_mutex);
    if (certificate != tls_certificate) {
      TlsConfig with_certificate = tls_config;
      if (certificate) {
        with_certificate.client_cert_pem = certificate->cert_pem;
        with_certificate.client_key_pem = certificate->key_pem;
      }
      try {
        tls = make_tls_context(with_certificate);
      } catch (const std::invalid_argument& e) {
        throw TransportError(
            TransportErrorKind::kTls, {},
            std::string("cannot use the credential's client certificate: ") + e.what());
      }
      tls_certificate = std::move(certificate);
    }
    co_return tls;
  }

  http::request<http::string_body> to_wire(const HttpRequest& request) const {
    http::request<http::string_body> wire;
    if (const auto verb = http::string_to_verb(request.method); verb != http::verb::unknown) {
      wire.method(verb);
    } else {
      wire.method_string(request.method);
    }
    wire.target(address.base_path + request.target);
    wire.version(11);
    wire.set(http::field::host, address.host_header());
    wire.set(http::field::user_agent, rg::user_agent());
    for (const auto& [name, value] : request.headers) wire.insert(name, value);
    wire.body() = request.body;
    wire.keep_alive(true);
    wire.prepare_payload();
    return wire;
  }

  asio::awaitable<ConnectionLease> connect(Deadline deadline, ConnectionKind kind) {
    auto context = co_await current_tls();
    ConnectionLease lease;
    if (kind == ConnectionKind::kPooled) lease = co_await pool->acquire(deadline, context.get());
    if (!lease.connection) {
      lease.connection = co_await Connection::open(address, context, server_name, deadline);
    }
    co_return lease;
  }
};

Transport::Transport(const RestConfig& config, TransportOptions options)
    : impl_(std::make_unique<Impl>()) {
  impl_->address = parse_server_address(config.host);
  impl_->server_name =
      config.tls.server_name.empty() ? impl_->address.host : config.tls.server_name;
  if (impl_->address.tls) {
    impl_->tls_config = config.tls;
    impl_->tls = make_tls_context(config.tls);
    if (config.tls.client_cert_pem.empty()) impl_->certificate_source = config.auth;
  }
  impl_->pool = std::make_shared<ConnectionPool>(options.max_connections, options.idle_timeout);
}

Transport::~Transport() = default;

asio::awaitable<BodyReader> Transport::send(HttpRequest request, Deadline deadline, bool replayable,
                                            ConnectionKind kind) {
  const auto wire = impl_->to_wire(request);
  for (bool replayed = false;; replayed = true) {
    auto state = std::make_unique<BodyReader::State>(co_await impl_->connect(deadline, kind));
    auto& connection = *state->lease.connection;
    const bool reused = connection.reused;
    try {
      co_await connection.write(wire, deadline);
      auto& parser = state->parser;
      parser.header_limit(kHeaderLimit);
      parser.body_limit(boost::none);  // bodies are streamed; round_trip applies its own limit
      parser.skip(wire.method() == http::verb::head);
      boost::system::error_code ec;
      co_await http::async_read_header(connection.stream(), connection.buffer(), parser,
                                       asio::redirect_error(asio::use_awaitable, ec));
      if (ec) throw connection.error(ec, IoStage::kReadHeader);
      state->status = static_cast<int>(parser.get().result_int());
      for (const auto& field : parser.get()) {
        state->headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
      }
      state->start_body(deadline);
      co_return BodyReader(std::move(state));
    } catch (const TransportError& error) {
      // A kept-alive connection the server had already closed: the request never reached it.
      const bool stale = reused && error.kind() == TransportErrorKind::kConnectionReset;
      if (!stale || !replayable || replayed) throw;
    }
  }
}

asio::awaitable<HttpResponse> Transport::round_trip(HttpRequest request, Deadline deadline,
                                                    bool replayable, std::size_t body_limit) {
  auto reader = co_await send(std::move(request), deadline, replayable);
  co_return co_await reader.read_response(body_limit);
}

TransportStats Transport::stats() const { return impl_->pool->stats(); }

}  // namespace rg::client
