// The scriptable test server: accept loop, one coroutine per connection, request parsing.
#include "test/client/transport/test_server.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>

#include <openssl/bio.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <memory>
#include <stdexcept>

// g++ 12 with -fsanitize=address at -O2 reports Asio's recycling coroutine-frame allocator as a
// mismatched new/delete here (a false positive: both sides are awaitable_frame_base's own
// operators).
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

namespace rg::test {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using boost::system::error_code;

namespace {

std::string subject_of_peer(SSL* ssl) {
  std::unique_ptr<X509, decltype(&X509_free)> cert(SSL_get1_peer_certificate(ssl), X509_free);
  if (!cert) return {};
  std::unique_ptr<BIO, decltype(&BIO_free)> out(BIO_new(BIO_s_mem()), BIO_free);
  X509_NAME_print_ex(out.get(), X509_get_subject_name(cert.get()), 0,
                     XN_FLAG_RFC2253 & ~ASN1_STRFLGS_ESC_MSB);
  char* data = nullptr;
  const long size = BIO_get_mem_data(out.get(), &data);
  return std::string(data, static_cast<std::size_t>(size));
}

}  // namespace

asio::awaitable<void> ServerSession::respond(int status, std::string body,
                                             client::HttpHeaders headers) {
  std::string text = "HTTP/1.1 " + std::to_string(status) + " Status\r\n";
  bool has_type = false;
  for (const auto& [name, value] : headers) {
    has_type = has_type || client::equals_ignore_case(name, "Content-Type");
    text += name + ": " + value + "\r\n";
  }
  if (!has_type) text += "Content-Type: application/json\r\n";
  text += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  co_await write_raw(text);
}

asio::awaitable<void> ServerSession::write_raw(std::string_view bytes) {
  error_code ec;
  co_await asio::async_write(stream_, asio::buffer(bytes),
                             asio::redirect_error(asio::use_awaitable, ec));
  if (ec) open_ = false;
}

asio::awaitable<void> ServerSession::wait_for_close() {
  char scratch[4096];
  for (;;) {
    error_code ec;
    co_await stream_.async_read_some(asio::buffer(scratch),
                                     asio::redirect_error(asio::use_awaitable, ec));
    if (ec) break;
  }
  if (open_) ++*closed_by_client_;
  open_ = false;
}

void ServerSession::close() {
  open_ = false;
  error_code ignored;
  stream_.socket().shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  stream_.socket().close(ignored);
}

TestServer::TestServer(asio::io_context& io, Handler handler,
                       std::shared_ptr<asio::ssl::context> tls)
    : io_(io),
      handler_(std::move(handler)),
      tls_(std::move(tls)),
      acceptor_(io, asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)) {
  asio::co_spawn(io_, accept_loop(), asio::detached);
}

TestServer::~TestServer() {
  *stopped_ = true;
  error_code ignored;
  acceptor_.close(ignored);
}

std::string TestServer::url() const {
  return std::string(tls_ ? "https" : "http") +
         "://127.0.0.1:" + std::to_string(acceptor_.local_endpoint().port());
}

client::RestConfig config_for(const TestServer& server) {
  client::RestConfig config;
  config.host = server.url();
  return config;
}

asio::awaitable<void> TestServer::accept_loop() {
  const auto stopped = stopped_;
  for (;;) {
    error_code ec;
    auto socket = co_await acceptor_.async_accept(asio::redirect_error(asio::use_awaitable, ec));
    if (*stopped || ec) co_return;
    const int id = ++*accepted_;
    auto stream = tls_ ? client::HttpStream(socket.get_executor(), *tls_)
                       : client::HttpStream(socket.get_executor());
    stream.socket() = std::move(socket);
    auto session = std::make_shared<ServerSession>(std::move(stream), id);
    session->closed_by_client_ = closed_by_client_;
    asio::co_spawn(io_, serve(std::move(session)), asio::detached);
  }
}

asio::awaitable<void> TestServer::serve(std::shared_ptr<ServerSession> session) {
  const auto stopped = stopped_;
  if (auto* tls = session->stream_.tls()) {
    error_code ec;
    co_await tls->async_handshake(asio::ssl::stream_base::server,
                                  asio::redirect_error(asio::use_awaitable, ec));
    if (ec) co_return;  // the client refused our certificate, or sent none when required
    session->peer_subject_ = subject_of_peer(tls->native_handle());
  }
  while (session->open_ && !*stopped) {
    http::request_parser<http::string_body> parser;
    parser.body_limit(boost::none);
    error_code ec;
    co_await http::async_read(session->stream_, session->buffer_, parser,
                              asio::redirect_error(asio::use_awaitable, ec));
    if (ec) {
      if (session->open_) ++*closed_by_client_;
      session->open_ = false;
      co_return;
    }
    auto message = parser.release();
    ServerRequest request;
    request.method = std::string(message.method_string());
    request.target = std::string(message.target());
    for (const auto& field : message) {
      request.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
    }
    request.body = std::move(message.body());
    ++*requests_;
    co_await handler_(*session, std::move(request));
  }
}

void run_until(asio::io_context& io, const std::function<bool()>& done) {
  io.restart();
  while (!done()) {
    if (io.run_one_for(std::chrono::seconds(30)) == 0) {
      throw std::runtime_error("test: nothing happened for 30 s, or the io_context ran dry");
    }
  }
}

void run(asio::io_context& io, asio::awaitable<void> task) {
  std::exception_ptr error;
  bool finished = false;
  asio::co_spawn(io, std::move(task), [&](std::exception_ptr e) {
    error = e;
    finished = true;
  });
  run_until(io, [&] { return finished; });
  if (error) std::rethrow_exception(error);
}

std::shared_ptr<asio::ssl::context> server_tls(const std::string& cert_pem,
                                               const std::string& key_pem,
                                               const std::string& client_ca_pem) {
  auto context = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_server);
  context->use_certificate_chain(asio::buffer(cert_pem));
  context->use_private_key(asio::buffer(key_pem), asio::ssl::context::pem);
  if (!client_ca_pem.empty()) {
    context->add_certificate_authority(asio::buffer(client_ca_pem));
    context->set_verify_mode(asio::ssl::verify_peer | asio::ssl::verify_fail_if_no_peer_cert);
  }
  return context;
}

}  // namespace rg::test
