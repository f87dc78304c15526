// kube-sim's client-certificate authentication, as kube-apiserver's x509 authenticator: a
// certificate signed by the client CA authenticates CN as the user with O as the groups, before
// bearer tokens; one that does not verify is 401 unless a token authenticates; the written admin
// kubeconfig carries a kubeadm-style admin certificate that our own client uses.
#include <doctest/doctest.h>

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <unistd.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "client/cert/certificates.hpp"
#include "client/config/resolve.hpp"
#include "client/rest/rest_client.hpp"
#include "sim/server.hpp"
#include "test/sim/auth_cluster.hpp"
#include "test/sim/tls_client.hpp"

namespace json = boost::json;
using rg::client::CertificateAndKey;
using rg::sim::test::bearer;
using rg::sim::test::str;
using rg::sim::test::tls_call;
using Headers = std::vector<std::pair<std::string, std::string>>;

namespace {

rg::sim::ServerOptions secured_https() {
  rg::sim::ServerOptions options;
  options.tls.enabled = true;
  options.auth.enabled = true;
  return options;
}

const std::string kReviewPath = "/apis/authentication.k8s.io/v1/selfsubjectreviews";
const std::string kReview =
    R"({"kind":"SelfSubjectReview","apiVersion":"authentication.k8s.io/v1","metadata":{}})";

/// `kubectl auth whoami` over HTTPS with `certificate` (and `headers`): status.userInfo, or the
/// HTTP status when it is not 201.
struct WhoAmI {
  int status = 0;
  json::object user;
};
WhoAmI who_am_i(const rg::sim::Server& server, const CertificateAndKey& certificate,
                const Headers& headers = {}) {
  auto reply =
      tls_call(server.port(), server.ca_pem(), "POST", kReviewPath, kReview, headers, certificate);
  WhoAmI out{reply.status, {}};
  if (reply.status == 201) out.user = reply.json().at("status").at("userInfo").as_object();
  return out;
}

CertificateAndKey client_certificate(const CertificateAndKey& ca, const std::string& common_name,
                                     std::vector<std::string> organizations = {}) {
  rg::client::CertificateRequest request;
  request.common_name = common_name;
  request.organizations = std::move(organizations);
  request.server_auth = false;
  request.client_auth = true;
  return rg::client::issue_certificate(ca, request);
}

/// `certificate` with its subject changed by `edit` and signed again by `ca` (same key): for
/// subjects client::issue_certificate does not make (no CN, uid attributes).
CertificateAndKey resubject(const CertificateAndKey& certificate, const CertificateAndKey& ca,
                            const std::function<void(X509_NAME*)>& edit) {
  BIO* cert_bio =
      BIO_new_mem_buf(certificate.cert_pem.data(), static_cast<int>(certificate.cert_pem.size()));
  X509* cert = PEM_read_bio_X509(cert_bio, nullptr, nullptr, nullptr);
  BIO_free(cert_bio);
  BIO* key_bio = BIO_new_mem_buf(ca.key_pem.data(), static_cast<int>(ca.key_pem.size()));
  EVP_PKEY* ca_key = PEM_read_bio_PrivateKey(key_bio, nullptr, nullptr, nullptr);
  BIO_free(key_bio);
  REQUIRE(cert != nullptr);
  REQUIRE(ca_key != nullptr);
  edit(X509_get_subject_name(cert));
  REQUIRE(X509_sign(cert, ca_key, EVP_sha256()) > 0);
  BIO* out = BIO_new(BIO_s_mem());
  PEM_write_bio_X509(out, cert);
  char* data = nullptr;
  const long size = BIO_get_mem_data(out, &data);
  CertificateAndKey resigned{std::string(data, static_cast<std::size_t>(size)),
                             certificate.key_pem};
  BIO_free(out);
  EVP_PKEY_free(ca_key);
  X509_free(cert);
  return resigned;
}

void add_uid(X509_NAME* name, const std::string& uid) {
  ASN1_OBJECT* oid = OBJ_txt2obj("1.3.6.1.4.1.57683.2", 1);
  X509_NAME_add_entry_by_OBJ(name, oid, MBSTRING_UTF8,
                             reinterpret_cast<const unsigned char*>(uid.data()),
                             static_cast<int>(uid.size()), -1, 0);
  ASN1_OBJECT_free(oid);
}

std::filesystem::path temp_path(const std::string& name) {
  return std::filesystem::temp_directory_path() /
         ("sim-client-cert-" + std::to_string(::getpid()) + "-" + name);
}

std::string read(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("a client certificate of the client CA authenticates CN as the user, O as groups") {
  rg::sim::Server server(secured_https());
  REQUIRE(server.issues_client_certificates());
  const auto jane = server.issue_client_certificate("jane", {"devs", "ops"});

  auto whoami = who_am_i(server, jane);
  REQUIRE(whoami.status == 201);
  CHECK(whoami.user.at("username") == "jane");
  CHECK(whoami.user.at("groups") == json::array{"devs", "ops", "system:authenticated"});
  CHECK(!whoami.user.contains("uid"));
  const auto& credential = whoami.user.at("extra").at("authentication.kubernetes.io/credential-id");
  REQUIRE(credential.as_array().size() == 1);
  CHECK(str(credential.at(0)).starts_with("X509SHA256="));
  CHECK(str(credential.at(0)).size() == std::string("X509SHA256=").size() + 64);

  // RBAC sees that user: nothing is granted to jane or her groups.
  auto pods = tls_call(server.port(), server.ca_pem(), "GET", "/api/v1/namespaces/default/pods", "",
                       {}, jane);
  CHECK(pods.status == 403);
  CHECK(str(pods.json().at("message")) ==
        R"(pods is forbidden: User "jane" cannot list resource "pods" in API group "" in the )"
        R"(namespace "default")");

  // The group system:masters is the administrator's.
  const auto admin = server.issue_client_certificate("kubernetes-admin", {"system:masters"});
  CHECK(tls_call(server.port(), server.ca_pem(), "GET", "/api/v1/pods", "", {}, admin).status ==
        200);

  // The certificate wins over a bearer token sent with it (the API server's order).
  auto both = who_am_i(server, jane, bearer(server.admin_token()));
  REQUIRE(both.status == 201);
  CHECK(both.user.at("username") == "jane");
}

TEST_CASE("client certificates that do not verify are 401 unless a token authenticates") {
  auto options = secured_https();
  options.auth.anonymous = true;
  rg::sim::Server server(options);
  const auto stranger_ca = rg::client::generate_ca("someone-else");
  const auto stranger = client_certificate(stranger_ca, "kubernetes-admin", {"system:masters"});

  // Not signed by the client CA: 401, even though anonymous requests are allowed.
  CHECK(who_am_i(server, stranger).status == 401);
  auto pods = tls_call(server.port(), server.ca_pem(), "GET", "/api/v1/pods", "", {}, stranger);
  CHECK(pods.status == 401);
  CHECK(str(pods.json().at("reason")) == "Unauthorized");
  // A valid token still authenticates the request.
  auto with_token = who_am_i(server, stranger, bearer(server.admin_token()));
  REQUIRE(with_token.status == 201);
  CHECK(with_token.user.at("username") == "kubernetes-admin");

  // Without a certificate the request is anonymous: RBAC decides (403, not 401).
  auto anonymous = tls_call(server.port(), server.ca_pem(), "GET", "/api/v1/pods");
  CHECK(anonymous.status == 403);
  CHECK(str(anonymous.json().at("message")).find(R"(User "system:anonymous")") !=
        std::string::npos);
}

TEST_CASE("the admin kubeconfig carries a kubernetes-admin certificate our client uses") {
  rg::sim::Server server(secured_https());
  const auto path = temp_path("admin.kubeconfig");
  server.write_kubeconfig(path.string());
  const auto text = read(path);
  CHECK(text.find("client-certificate-data: ") != std::string::npos);
  CHECK(text.find("client-key-data: ") != std::string::npos);
  CHECK(text.find("token:") == std::string::npos);

  rg::client::ResolveOptions resolve;
  resolve.kubeconfig = path.string();
  auto config = rg::client::resolve_config(resolve);
  CHECK(!config.tls.client_cert_pem.empty());
  boost::asio::io_context io;
  {
    rg::client::RestClient client(std::move(config));
    const rg::client::ResourceRef reviews{
        "authentication.k8s.io", "v1", "selfsubjectreviews", false, "", ""};
    auto work = client.create(reviews, json::parse(kReview));
    auto future = boost::asio::co_spawn(io, std::move(work), boost::asio::use_future);
    io.run();
    const auto review = future.get();
    CHECK(review.at("status").at("userInfo").at("username") == "kubernetes-admin");
    CHECK(review.at("status").at("userInfo").at("groups") ==
          json::array{"system:masters", "system:authenticated"});
  }
  std::filesystem::remove(path);

  // A token kubeconfig (a ServiceAccount's) stays a token one.
  const auto token_path = temp_path("token.kubeconfig");
  server.write_kubeconfig(token_path.string(), "abc", "team");
  CHECK(read(token_path).find("token: \"abc\"") != std::string::npos);
  CHECK(read(token_path).find("client-certificate-data") == std::string::npos);
  std::filesystem::remove(token_path);
}

TEST_CASE("--client-ca-file: certificates of that CA authenticate; kube-sim issues none") {
  const auto ca = rg::client::generate_ca("team-ca");
  const auto path = temp_path("client-ca.pem");
  std::ofstream(path) << ca.cert_pem;
  auto options = secured_https();
  options.tls.client_ca_file = path.string();
  {
    rg::sim::Server server(options);
    CHECK(!server.issues_client_certificates());
    CHECK_THROWS_AS(server.issue_client_certificate("x", {}), std::logic_error);
    auto alice = who_am_i(server, client_certificate(ca, "alice", {"team"}));
    REQUIRE(alice.status == 201);
    CHECK(alice.user.at("username") == "alice");
    CHECK(alice.user.at("groups") == json::array{"team", "system:authenticated"});
    // Signed by the client CA but for servers only (no clientAuth usage): refused, as the API
    // server's verification for x509.ExtKeyUsageClientAuth does.
    rg::client::CertificateRequest serving_only;
    serving_only.common_name = "alice";
    CHECK(who_am_i(server, rg::client::issue_certificate(ca, serving_only)).status == 401);
    // The generated CA signs the serving certificate only now.
    const auto kubeconfig = temp_path("token-admin.kubeconfig");
    server.write_kubeconfig(kubeconfig.string());
    CHECK(read(kubeconfig).find("token: ") != std::string::npos);
    std::filesystem::remove(kubeconfig);
  }
  std::ofstream(path) << "not a certificate";
  CHECK_THROWS_WITH_AS(rg::sim::Server{options},
                       doctest::Contains("the client CA (--client-ca-file) holds no PEM"),
                       std::runtime_error);
  options.tls.client_ca_file = temp_path("missing.pem").string();
  CHECK_THROWS_WITH_AS(rg::sim::Server{options},
                       doctest::Contains("cannot read the client CA (--client-ca-file)"),
                       std::runtime_error);
  std::filesystem::remove(path);
}

TEST_CASE("client certificate subjects: the uid attribute, several uids, no CN") {
  const auto ca = rg::client::generate_ca("team-ca");
  const auto path = temp_path("uid-ca.pem");
  std::ofstream(path) << ca.cert_pem;
  auto options = secured_https();
  options.tls.client_ca_file = path.string();
  rg::sim::Server server(options);
  const auto bob = client_certificate(ca, "bob", {"team"});

  const auto with_uid = resubject(bob, ca, [](X509_NAME* name) { add_uid(name, "bob-uid"); });
  auto whoami = who_am_i(server, with_uid);
  REQUIRE(whoami.status == 201);
  CHECK(whoami.user.at("username") == "bob");
  CHECK(whoami.user.at("uid") == "bob-uid");

  const auto two_uids = resubject(bob, ca, [](X509_NAME* name) {
    add_uid(name, "a");
    add_uid(name, "b");
  });
  CHECK(who_am_i(server, two_uids).status == 401);
  CHECK(who_am_i(server, resubject(bob, ca, [](X509_NAME* name) { add_uid(name, ""); })).status ==
        401);

  // Without CN the certificate names no one: the token decides, or 401 without one.
  const auto nameless = resubject(bob, ca, [](X509_NAME* name) {
    X509_NAME_ENTRY_free(
        X509_NAME_delete_entry(name, X509_NAME_get_index_by_NID(name, NID_commonName, -1)));
  });
  CHECK(who_am_i(server, nameless).status == 401);
  auto by_token = who_am_i(server, nameless, bearer(server.admin_token()));
  REQUIRE(by_token.status == 201);
  CHECK(by_token.user.at("username") == "kubernetes-admin");
  std::filesystem::remove(path);
}
