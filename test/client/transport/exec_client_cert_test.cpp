// Client certificates from exec credential plugins, end to end: a fake plugin script prints an
// ExecCredential holding a certificate issued by a test CA, and an HTTPS server on 127.0.0.1 that
// requires client certificates from that CA reports the subject it saw. Covers caching until
// expirationTimestamp, rotation after expiry and after a 401 (new connections get the new
// certificate, connections made with the old one are never reused), an unchanged certificate
// keeping its connections, and a token and a certificate used together.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <boost/json.hpp>

#include <fstream>
#include <sstream>

#include "client/cert/certificates.hpp"
#include "client/config/exec_credential.hpp"
#include "client/model/time.hpp"
#include "client/rest/api_error.hpp"
#include "client/rest/rest_client.hpp"
#include "client/transport/transport.hpp"
#include "test/client/config/temp_dir.hpp"
#include "test/client/transport/test_server.hpp"

namespace asio = boost::asio;
using namespace rg::client;
using rg::test::run;
using rg::test::ServerRequest;
using rg::test::ServerSession;
using rg::test::TempDir;
using rg::test::TestServer;
using std::chrono::system_clock;

namespace {

constexpr std::string_view kV1 = "client.authentication.k8s.io/v1";

/// Counts its runs in $STATE/runs and prints whatever the test put in $STATE/credential.json.
constexpr std::string_view kPlugin = R"(#!/bin/sh
echo run >> "$STATE/runs"
cat "$STATE/credential.json"
)";

/// A CA for the server, another for client certificates, the plugin's folder and a clock that
/// the test moves.
struct Fixture {
  CertificateAndKey server_ca = generate_ca("server-ca");
  CertificateAndKey client_ca = generate_ca("client-ca");
  CertificateAndKey server_cert = issue_certificate(server_ca, [] {
    CertificateRequest request;
    request.common_name = "kube-sim";
    request.ip_addresses = {"127.0.0.1"};
    return request;
  }());
  TempDir dir;
  system_clock::time_point now = parse_rfc3339("2030-01-01T00:00:00Z").value();
  asio::io_context io;
  /// Answers 200 with the subject of the connection's client certificate, or 401 for
  /// `rejected_subject`; records each request's Authorization header.
  std::string rejected_subject;
  std::vector<std::string> authorizations;
  TestServer server{
      io,
      [this](ServerSession& session, ServerRequest request) -> asio::awaitable<void> {
        authorizations.emplace_back(request.header("Authorization"));
        if (session.peer_subject() == rejected_subject) {
          co_await session.respond(401, R"({"kind":"Status","apiVersion":"v1","status":"Failure",)"
                                        R"("reason":"Unauthorized","code":401})");
        } else {
          co_await session.respond(200, session.peer_subject());
        }
      },
      rg::test::server_tls(server_cert.cert_pem, server_cert.key_pem, client_ca.cert_pem)};

  /// A client certificate with subject CN=<common_name>,O=<organization> from the client CA.
  CertificateAndKey client_cert(const std::string& common_name) const {
    CertificateRequest request;
    request.common_name = common_name;
    request.organizations = {"system:masters"};
    request.server_auth = false;
    request.client_auth = true;
    return issue_certificate(client_ca, request);
  }

  /// What the plugin prints on its next run.
  void plugin_returns(const CertificateAndKey& cert, std::string_view expiry = {},
                      std::string_view token = {}) const {
    boost::json::object status{{"clientCertificateData", cert.cert_pem},
                               {"clientKeyData", cert.key_pem}};
    if (!expiry.empty()) status["expirationTimestamp"] = expiry;
    if (!token.empty()) status["token"] = token;
    boost::json::object credential{
        {"apiVersion", kV1}, {"kind", "ExecCredential"}, {"status", std::move(status)}};
    dir.write("credential.json", boost::json::serialize(credential));
  }

  std::shared_ptr<ExecCredential> credential() {
    ExecConfig config;
    config.api_version = kV1;
    config.command = dir.write("plugin.sh", kPlugin, 0755).string();
    config.env = {{"STATE", dir.path().string()}};
    return std::make_shared<ExecCredential>(config, ExecClusterInfo{}, [this] { return now; });
  }

  RestConfig rest_config(std::shared_ptr<AuthProvider> auth) const {
    RestConfig config;
    config.host = server.url();
    config.tls.ca_pem = server_ca.cert_pem;
    config.auth = std::move(auth);
    return config;
  }

  /// GET through the RestClient; the body is the subject the server saw.
  std::string whoami(RestClient& client) {
    RawRequest request;
    request.path = "/whoami";
    return run(io, client.raw(request)).body;
  }
};

}  // namespace

TEST_CASE("exec client certificate: presented, cached until expiry, then rotated") {
  Fixture f;
  f.plugin_returns(f.client_cert("alice-1"), "2030-01-01T01:00:00Z");
  auto credential = f.credential();
  RestClient client(f.rest_config(credential));

  CHECK(f.whoami(client) == "CN=alice-1,O=system:masters");
  CHECK(f.whoami(client) == "CN=alice-1,O=system:masters");
  CHECK(credential->runs() == 1);
  CHECK(f.server.connections_accepted() == 1);
  // A certificate-only credential sends no Authorization header.
  CHECK(f.authorizations == std::vector<std::string>{"", ""});

  f.plugin_returns(f.client_cert("alice-2"), "2030-01-01T03:00:00Z");
  f.now += std::chrono::minutes(59);
  CHECK(f.whoami(client) == "CN=alice-1,O=system:masters");  // not expired yet
  CHECK(credential->runs() == 1);

  f.now += std::chrono::minutes(2);  // past expirationTimestamp
  CHECK(f.whoami(client) == "CN=alice-2,O=system:masters");
  CHECK(credential->runs() == 2);
  CHECK(f.server.connections_accepted() == 2);  // the old connection was not reused
  CHECK(f.whoami(client) == "CN=alice-2,O=system:masters");
  CHECK(f.server.connections_accepted() == 2);  // the new one is
  CHECK(credential->runs() == 2);
}

TEST_CASE("exec client certificate: a 401 re-runs the plugin and new connections use the result") {
  Fixture f;
  f.rejected_subject = "CN=revoked,O=system:masters";
  f.plugin_returns(f.client_cert("revoked"));  // no expiry: cached until a 401
  auto credential = f.credential();
  RestClient client(f.rest_config(credential));

  try {
    f.whoami(client);
    FAIL("the revoked certificate was accepted");
  } catch (const ApiError& e) {
    CHECK(e.code() == 401);
  }
  CHECK(credential->runs() == 1);

  f.plugin_returns(f.client_cert("renewed"));
  CHECK(f.whoami(client) == "CN=renewed,O=system:masters");
  CHECK(credential->runs() == 2);
  CHECK(f.server.connections_accepted() == 2);
}

TEST_CASE("exec client certificate: a connection busy during a rotation is not reused after it") {
  Fixture f;
  f.plugin_returns(f.client_cert("old"), "2030-01-01T01:00:00Z");
  auto credential = f.credential();
  Transport transport(f.rest_config(credential));
  const HttpRequest request{"GET", "/whoami", {}, {}};
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);

  // The first response stays unread, so its connection stays borrowed across the rotation.
  auto busy = run(f.io, transport.send(request, deadline, true));
  f.plugin_returns(f.client_cert("new"), "2030-01-01T03:00:00Z");
  f.now += std::chrono::hours(2);
  CHECK(run(f.io, transport.round_trip(request, deadline, true)).body == "CN=new,O=system:masters");
  CHECK(run(f.io, busy.read_response(1024)).body == "CN=old,O=system:masters");
  CHECK(transport.stats().idle == 2);  // both back in the pool...

  for (int i = 0; i < 3; ++i) {
    CHECK(run(f.io, transport.round_trip(request, deadline, true)).body ==
          "CN=new,O=system:masters");
  }
  CHECK(f.server.connections_accepted() == 2);
  CHECK(transport.stats().open == 1);  // ...but the old one was closed, never reused
  CHECK(credential->runs() == 2);
}

TEST_CASE("exec client certificate: the same certificate after a re-run keeps its connections") {
  Fixture f;
  const auto cert = f.client_cert("steady");
  f.plugin_returns(cert, "2030-01-01T01:00:00Z");
  auto credential = f.credential();
  RestClient client(f.rest_config(credential));
  CHECK(f.whoami(client) == "CN=steady,O=system:masters");
  f.plugin_returns(cert, "2030-01-01T03:00:00Z");
  f.now += std::chrono::hours(2);
  CHECK(f.whoami(client) == "CN=steady,O=system:masters");
  CHECK(credential->runs() == 2);
  CHECK(f.server.connections_accepted() == 1);
}

TEST_CASE("exec client certificate: a token and a certificate are both used") {
  Fixture f;
  f.plugin_returns(f.client_cert("bob"), {}, "tok-bob");
  RestClient client(f.rest_config(f.credential()));
  CHECK(f.whoami(client) == "CN=bob,O=system:masters");
  CHECK(f.authorizations == std::vector<std::string>{"Bearer tok-bob"});
}

TEST_CASE("exec client certificate: a static client certificate wins over the plugin's") {
  Fixture f;
  f.plugin_returns(f.client_cert("from-plugin"));
  const auto static_cert = f.client_cert("from-kubeconfig");
  auto credential = f.credential();
  RestConfig config = f.rest_config(credential);
  config.tls.client_cert_pem = static_cert.cert_pem;
  config.tls.client_key_pem = static_cert.key_pem;
  Transport transport(config);
  const HttpRequest request{"GET", "/whoami", {}, {}};
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  CHECK(run(f.io, transport.round_trip(request, deadline, true)).body ==
        "CN=from-kubeconfig,O=system:masters");
  CHECK(credential->runs() == 0);
}

TEST_CASE("exec client certificate: a plugin failure fails the request, naming the plugin") {
  Fixture f;
  f.dir.write("credential.json", R"({"kind":)");
  auto credential = f.credential();
  RestClient client(f.rest_config(credential));
  try {
    f.whoami(client);
    FAIL("the request succeeded");
  } catch (const ExecPluginError& e) {
    CHECK(std::string(e.what()).find("plugin.sh: its output is not JSON") != std::string::npos);
  }
  CHECK(f.server.connections_accepted() == 0);
}
