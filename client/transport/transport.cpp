// Transport: building the wire request, picking a connection (and the TLS context of the current
// client certificate), the one stale-connection replay, and reading the response header into a
// BodyReader.
#include "client/transport/transport.hpp"

#include <algorithm>
#include <mutex>
#include <stdexcept>

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/http/read.hpp>

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

// RFC 9110 token characters: methods and header field names.
bool is_token(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
  });
}

// No control characters but tab (CR or LF would end the line: header injection).
bool is_field_value(std::string_view text) {
  return std::none_of(text.begin(), text.end(), [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return (byte < 0x20 && c != '\t') || byte == 0x7f;
  });
}

// Methods whose requests carry a body: they say Content-Length even when it is 0.
bool expects_body(std::string_view method) {
  return method == "POST" || method == "PUT" || method == "PATCH";
}

}  // namespace

struct Transport::Impl {
  ServerAddress address;
  std::string host_header;  // the Host field: address.host_header()
  std::string server_name;  // SNI and the name the certificate must match
  TlsConfig tls_config;
  // Asked for a client certificate before each connection is picked; null when there is no TLS,
  // no AuthProvider, or a static client certificate (which wins, as in client-go).
  std::shared_ptr<AuthProvider> certificate_source;
  std::shared_ptr<ConnectionPool> pool;
  std::shared_ptr<TransportTracer> tracer;
  std::string user_agent;
  std::function<void(const HttpRequest&)> before_write;

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

  // The request line and header fields, up to and including the empty line: Host, User-Agent,
  // the request's own fields, and Content-Length. Throws std::invalid_argument for a method,
  // target or field that would not be one line of HTTP.
  std::string request_head(const HttpRequest& request) const {
    if (!is_token(request.method))
      throw std::invalid_argument("invalid HTTP method \"" + request.method + "\"");
    if (request.target.empty() || !is_field_value(request.target) ||
        request.target.find(' ') != std::string::npos) {
      throw std::invalid_argument("invalid request target \"" + request.target + "\"");
    }
    std::string head;
    head.reserve(256 + address.base_path.size() + request.target.size());
    head.append(request.method)
        .append(" ")
        .append(address.base_path)
        .append(request.target)
        .append(" HTTP/1.1\r\nHost: ")
        .append(host_header)
        .append("\r\nUser-Agent: ")
        .append(user_agent)
        .append("\r\n");
    for (const auto& [name, value] : request.headers) {
      if (!is_token(name) || !is_field_value(value)) {
        throw std::invalid_argument("invalid HTTP header field \"" + name +
                                    "\" (a name is a token; a value has no line breaks)");
      }
      head.append(name).append(": ").append(value).append("\r\n");
    }
    if (!request.body.empty() || expects_body(request.method))
      head.append("Content-Length: ").append(std::to_string(request.body.size())).append("\r\n");
    head.append("\r\n");
    return head;
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
  impl_->host_header = impl_->address.host_header();
  impl_->server_name =
      config.tls.server_name.empty() ? impl_->address.host : config.tls.server_name;
  if (impl_->address.tls) {
    impl_->tls_config = config.tls;
    impl_->tls = make_tls_context(config.tls);
    if (config.tls.client_cert_pem.empty()) impl_->certificate_source = config.auth;
  }
  impl_->pool = std::make_shared<ConnectionPool>(options.max_connections, options.idle_timeout);
  impl_->tracer = std::move(options.tracer);
  impl_->user_agent =
      options.user_agent.empty() ? std::string(rg::user_agent()) : std::move(options.user_agent);
  if (!is_field_value(impl_->user_agent))
    throw std::invalid_argument("invalid User-Agent \"" + impl_->user_agent + "\"");
  impl_->before_write = std::move(options.before_write);
}

Transport::~Transport() = default;

asio::awaitable<BodyReader> Transport::send(HttpRequest request, Deadline deadline, bool replayable,
                                            ConnectionKind kind) {
  const std::string head = impl_->request_head(request);
  for (bool replayed = false;; replayed = true) {
    auto state = std::make_unique<BodyReader::State>(co_await impl_->connect(deadline, kind));
    auto& connection = *state->lease.connection;
    const bool reused = connection.reused;
    try {
      if (impl_->before_write) impl_->before_write(request);
      co_await connection.write(head, request.body, deadline);
      if (const auto& tracer = impl_->tracer) {
        tracer->on_request_written(request.method, request.target);
        state->tracer = tracer;
        state->target = request.target;
      }
      auto& parser = state->parser;
      parser.header_limit(kHeaderLimit);
      parser.body_limit(boost::none);  // bodies are streamed; round_trip applies its own limit
      parser.skip(request.method == "HEAD");
      boost::system::error_code ec;
      co_await http::async_read_header(connection.stream(), connection.buffer(), parser,
                                       asio::redirect_error(asio::use_awaitable, ec));
      if (ec) throw connection.error(ec, IoStage::kReadHeader);
      state->status = static_cast<int>(parser.get().result_int());
      for (const auto& field : parser.get()) {
        state->headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
      }
      state->start_body();
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
