// TLS tests: verification on by default (good CA, wrong CA, wrong host name, each failure
// naming its reason), explicit server_name, insecure_skip_verify, and mutual TLS.
#include <doctest/doctest.h>

#include "client/cert/certificates.hpp"
#include "client/transport/transport.hpp"
#include "client/transport/transport_error.hpp"
#include "test/client/transport/test_server.hpp"

namespace asio = boost::asio;
using namespace rg::client;
using rg::test::run;
using rg::test::ServerRequest;
using rg::test::ServerSession;
using rg::test::TestServer;

namespace {

asio::awaitable<void> answer_secure(ServerSession& session, ServerRequest) {
  co_await session.respond(200, "secure");
}

struct Pki {
  CertificateAndKey ca = generate_ca("test-ca");
  CertificateAndKey server = issue_certificate(ca, [] {
    CertificateRequest request;
    request.common_name = "kube-sim";
    request.dns_names = {"localhost", "kube-sim.test"};
    request.ip_addresses = {"127.0.0.1"};
    return request;
  }());
};

std::string fetch(asio::io_context& io, const RestConfig& config) {
  Transport transport(config);
  const HttpRequest request{"GET", "/version", {}, {}};
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  return run(io, transport.round_trip(request, deadline, true)).body;
}

// The TransportError a fetch fails with.
TransportError fetch_error(asio::io_context& io, const RestConfig& config) {
  try {
    fetch(io, config);
  } catch (const TransportError& error) {
    return error;
  }
  FAIL("the request succeeded");
  return TransportError(TransportErrorKind::kProtocol, {}, "");
}

}  // namespace

TEST_CASE("tls: the server's CA verifies the IP and DNS names in its certificate") {
  asio::io_context io;
  const Pki pki;
  TestServer server(io, answer_secure,
                    rg::test::server_tls(pki.server.cert_pem, pki.server.key_pem));
  RestConfig config;
  config.host = server.url();
  config.tls.ca_pem = pki.ca.cert_pem;
  CHECK(fetch(io, config) == "secure");

  config.tls.server_name = "kube-sim.test";  // SNI and verification by DNS name
  CHECK(fetch(io, config) == "secure");
}

TEST_CASE("tls: a certificate from another CA is refused, naming the reason") {
  asio::io_context io;
  const Pki pki;
  TestServer server(io, answer_secure,
                    rg::test::server_tls(pki.server.cert_pem, pki.server.key_pem));
  RestConfig config;
  config.host = server.url();
  config.tls.ca_pem = generate_ca("someone-else").cert_pem;
  const auto error = fetch_error(io, config);
  CHECK(error.kind() == TransportErrorKind::kTls);
  const std::string text = error.what();
  CHECK(text.find("certificate verify failed") != std::string::npos);
  CHECK(text.find("unable to get local issuer certificate") != std::string::npos);

  SUBCASE("unless verification is explicitly skipped") {
    config.tls.insecure_skip_verify = true;
    CHECK(fetch(io, config) == "secure");
  }
}

TEST_CASE("tls: a certificate for another host name is refused, naming the name") {
  asio::io_context io;
  const Pki pki;
  TestServer server(io, answer_secure,
                    rg::test::server_tls(pki.server.cert_pem, pki.server.key_pem));
  RestConfig config;
  config.host = server.url();
  config.tls.ca_pem = pki.ca.cert_pem;
  config.tls.server_name = "api.other.example";
  const auto error = fetch_error(io, config);
  CHECK(error.kind() == TransportErrorKind::kTls);
  CHECK(std::string(error.what()).find("not valid for \"api.other.example\"") != std::string::npos);
}

TEST_CASE("tls: mutual TLS presents the client certificate the server requires") {
  asio::io_context io;
  const Pki pki;
  const auto client_ca = generate_ca("client-ca");
  TestServer server(
      io, answer_secure,
      rg::test::server_tls(pki.server.cert_pem, pki.server.key_pem, client_ca.cert_pem));
  RestConfig config;
  config.host = server.url();
  config.tls.ca_pem = pki.ca.cert_pem;

  SUBCASE("without a client certificate the server refuses") {
    CHECK_THROWS_AS(fetch(io, config), TransportError);
  }
  SUBCASE("with one signed by the CA it trusts") {
    CertificateRequest request;
    request.common_name = "replica-guard";
    request.server_auth = false;
    request.client_auth = true;
    const auto client = issue_certificate(client_ca, request);
    config.tls.client_cert_pem = client.cert_pem;
    config.tls.client_key_pem = client.key_pem;
    CHECK(fetch(io, config) == "secure");
  }
}

TEST_CASE("tls: unusable PEM in the configuration is refused up front") {
  RestConfig config;
  config.host = "https://127.0.0.1:1";
  config.tls.ca_pem = "not a certificate";
  CHECK_THROWS_WITH_AS(Transport{config}, doctest::Contains("certificate authority"),
                       std::invalid_argument);
  config.tls.ca_pem.clear();
  config.tls.client_cert_pem = "x";
  CHECK_THROWS_WITH_AS(Transport{config}, doctest::Contains("client_key_pem"),
                       std::invalid_argument);
}

TEST_CASE("tls: a chunked watch body streams over TLS, cut-off detected") {
  asio::io_context io;
  const Pki pki;
  TestServer server(
      io,
      [](ServerSession& session, ServerRequest request) -> asio::awaitable<void> {
        co_await session.write_raw(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{}\n\n\r\n4\r\n[]\n\n\r\n");
        if (request.target == "/cut") {
          session.close();
        } else {
          co_await session.write_raw("0\r\n\r\n");
        }
      },
      rg::test::server_tls(pki.server.cert_pem, pki.server.key_pem));
  RestConfig config;
  config.host = server.url();
  config.tls.ca_pem = pki.ca.cert_pem;
  Transport transport(config);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);

  const HttpRequest whole{"GET", "/whole", {}, {}};
  auto reader = run(io, transport.send(whole, deadline, true, ConnectionKind::kDedicated));
  std::string body;
  for (auto piece = run(io, reader.read_some()); !piece.empty();
       piece = run(io, reader.read_some())) {
    body += piece;
  }
  CHECK(body == "{}\n\n[]\n\n");

  const HttpRequest cut{"GET", "/cut", {}, {}};
  auto truncated = run(io, transport.send(cut, deadline, true, ConnectionKind::kDedicated));
  try {
    for (;;) {
      if (run(io, truncated.read_some()).empty()) break;
    }
    FAIL("a cut-off TLS body ended cleanly");
  } catch (const TransportError& error) {
    CHECK(error.kind() == TransportErrorKind::kTruncatedBody);
  }
}
