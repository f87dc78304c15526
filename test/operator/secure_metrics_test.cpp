// The secure metrics server against an in-process kube-sim with RBAC: HTTPS only from TLS 1.2,
// 401 without a token or with a refused one, 403 for a user RBAC does not allow get on /metrics,
// 200 for one it does; answers cached; unknown tokens over the review cap refused without a
// review; 500 when the reviews themselves fail; the certificate reloaded when its files change.
// And the pure cache policy (ExpiringCache).
#include <doctest/doctest.h>

#include <unistd.h>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "operator/certificate_watcher.hpp"
#include "operator/expiring_cache.hpp"
#include "operator/http_server.hpp"
#include "operator/metrics_authorizer.hpp"
#include "test/sim/auth_cluster.hpp"
#include "test/sim/tls_client.hpp"

namespace asio = boost::asio;
using rg::op::CertificateWatcher;
using rg::op::ExpiringCache;
using rg::op::HttpReply;
using rg::op::HttpServer;
using rg::op::MetricsAuthConfig;
using rg::op::MetricsAuthorizer;
using rg::sim::test::bearer;
using rg::sim::test::binding;
using rg::sim::test::Cluster;
using rg::sim::test::role;
using rg::sim::test::tls_call;

namespace {

using namespace std::chrono_literals;
using namespace asio::experimental::awaitable_operators;

/// "review/outcome" -> count of replica_guard_metrics_auth_reviews_total.
std::map<std::string, double> reviews(prometheus::Registry& registry) {
  std::map<std::string, double> out;
  for (const auto& family : registry.Collect())
    if (family.name == "replica_guard_metrics_auth_reviews_total")
      for (const auto& metric : family.metric) {
        std::string review;
        std::string outcome;
        for (const auto& label : metric.label)
          (label.name == "review" ? review : outcome) = label.value;
        out[review + "/" + outcome] = metric.counter.value;
      }
  return out;
}

void write(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

/// A certificate for 127.0.0.1 from a fresh CA; the CA's PEM in `ca_pem`.
rg::client::CertificateAndKey serving_certificate(std::string& ca_pem) {
  const auto ca = rg::client::generate_ca("metrics-test-ca");
  ca_pem = ca.cert_pem;
  rg::client::CertificateRequest request;
  request.common_name = "replica-guard-metrics";
  request.ip_addresses = {"127.0.0.1"};
  return rg::client::issue_certificate(ca, request);
}

/// The operator's side: an HTTPS server with /metrics behind a MetricsAuthorizer whose reviews
/// go to `api` (as the admin), its certificate from files in a temporary directory, running on
/// its own thread until destroyed.
struct MetricsEndpoint {
  explicit MetricsEndpoint(const rg::client::RestConfig& api, MetricsAuthConfig config = {})
      : dir(std::filesystem::temp_directory_path() /
            ("rg-metrics-" + std::to_string(::getpid()) + "-" + std::to_string(++count))),
        client(api) {
    std::filesystem::create_directories(dir);
    install(serving_certificate(ca_pem));
    watcher = std::make_unique<CertificateWatcher>((dir / "tls.crt").string(),
                                                   (dir / "tls.key").string());
    authorizer = std::make_unique<MetricsAuthorizer>(client, registry, config);
    server =
        std::make_unique<HttpServer>(io.get_executor(), rg::op::parse_bind_address("127.0.0.1:0"));
    bound_port = server->local_endpoint().port();  // before the io thread uses the acceptor
    server->route("/metrics", [](std::string_view) {
      return HttpReply{200, "text/plain; version=0.0.4", "workqueue_depth 0\n"};
    });
    server->use_tls([this] { return watcher->current(); });
    server->filter(
        [this](const rg::op::HttpRequestHead& request) { return authorizer->admit(request); });
    auto serve = [this]() -> asio::awaitable<void> {
      auto serving = server->run();
      auto watching = watcher->watch(50ms);
      co_await (std::move(serving) && std::move(watching));
    };
    asio::co_spawn(io, serve, asio::bind_cancellation_slot(stop.slot(), asio::detached));
    thread = std::thread([this] { io.run(); });
  }
  ~MetricsEndpoint() {
    asio::post(io, [this] { stop.emit(asio::cancellation_type::terminal); });
    thread.join();
    std::filesystem::remove_all(dir);
  }

  /// Replaces the pair as a Secret volume does: new files, then one rename.
  void install(const rg::client::CertificateAndKey& pair) {
    const auto staged = dir / "staged";
    std::filesystem::create_directories(staged);
    write(staged / "tls.crt", pair.cert_pem);
    write(staged / "tls.key", pair.key_pem);
    std::filesystem::rename(staged / "tls.key", dir / "tls.key");
    std::filesystem::rename(staged / "tls.crt", dir / "tls.crt");
  }

  unsigned short port() const { return bound_port; }

  rg::sim::test::Reply get(const std::string& token = "") const {
    return tls_call(port(), ca_pem, "GET", "/metrics", "",
                    token.empty() ? rg::sim::test::Headers{} : bearer(token));
  }

  static inline int count = 0;
  std::filesystem::path dir;
  std::string ca_pem;
  asio::io_context io;
  prometheus::Registry registry;
  rg::client::RestClient client;
  std::unique_ptr<CertificateWatcher> watcher;
  std::unique_ptr<MetricsAuthorizer> authorizer;
  std::unique_ptr<HttpServer> server;
  unsigned short bound_port = 0;
  asio::cancellation_signal stop;
  std::thread thread;
};

/// kube-sim's cluster with the ServiceAccounts "prom" (bound to metrics-reader, as the chart
/// binds Prometheus) and "nobody" in namespace "team".
struct Scrapers : Cluster {
  Scrapers() {
    for (const char* name : {"prom", "nobody"})
      create("/api/v1/namespaces/team/serviceaccounts",
             std::string(R"({"metadata":{"name":")") + name + R"("}})");
    create("/apis/rbac.authorization.k8s.io/v1/clusterroles",
           role("ClusterRole", "metrics-reader",
                R"([{"nonResourceURLs":["/metrics"],"verbs":["get"]}])"));
    create("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
           binding("ClusterRoleBinding", "prom-metrics", "ClusterRole", "metrics-reader",
                   R"([{"kind":"ServiceAccount","name":"prom","namespace":"team"}])"));
  }
  std::string token_of(const std::string& name) {
    auto reply = rg::sim::test::call(port(), "POST",
                                     "/api/v1/namespaces/team/serviceaccounts/" + name + "/token",
                                     R"({"spec":{}})", admin);
    REQUIRE(reply.status == 201);
    return rg::sim::test::str(reply.json().at("status").at("token"));
  }
};

}  // namespace

TEST_CASE("ExpiringCache: entries expire after their own TTL; a full cache drops the soonest") {
  using Clock = ExpiringCache<int>::Clock;
  const auto t0 = Clock::time_point{} + 1h;
  ExpiringCache<int> cache(2);
  cache.put("a", 1, 60s, t0);
  cache.put("b", 2, 30s, t0);
  CHECK(cache.get("a", t0 + 59s) == 1);
  CHECK(cache.get("a", t0 + 60s) == std::nullopt);
  CHECK(cache.get("b", t0 + 29s) == 2);
  CHECK(cache.get("b", t0 + 30s) == std::nullopt);
  cache.put("c", 3, 300s, t0);  // full: "b" expires soonest and goes
  CHECK(cache.size() == 2);
  CHECK(cache.get("b", t0) == std::nullopt);
  CHECK(cache.get("a", t0) == 1);
  CHECK(cache.get("c", t0 + 299s) == 3);
  cache.put("a", 4, 1s, t0);  // replacing keeps one entry per key
  CHECK(cache.size() == 2);
  CHECK(cache.get("a", t0) == 4);
  ExpiringCache<int> none(0);
  none.put("a", 1, 60s, t0);
  CHECK(none.get("a", t0) == std::nullopt);
}

TEST_CASE("CertificateWatcher: a changed pair replaces the context, a broken one leaves it") {
  const auto dir =
      std::filesystem::temp_directory_path() / ("rg-watcher-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string ca;
  const auto first = serving_certificate(ca);
  write(dir / "tls.crt", first.cert_pem);
  write(dir / "tls.key", first.key_pem);
  CertificateWatcher watcher((dir / "tls.crt").string(), (dir / "tls.key").string());
  const auto loaded = watcher.current();
  CHECK_FALSE(watcher.reload());  // unchanged
  CHECK(watcher.current() == loaded);
  const auto second = serving_certificate(ca);
  write(dir / "tls.crt", second.cert_pem);  // caught between the two writes: key mismatch
  CHECK_FALSE(watcher.reload());
  CHECK(watcher.current() == loaded);
  write(dir / "tls.key", second.key_pem);
  CHECK(watcher.reload());
  CHECK(watcher.current() != loaded);
  write(dir / "tls.crt", "not PEM");
  CHECK_FALSE(watcher.reload());
  std::filesystem::remove(dir / "tls.key");
  CHECK_FALSE(watcher.reload());
  CHECK_THROWS_WITH_AS(CertificateWatcher((dir / "tls.crt").string(), (dir / "tls.key").string()),
                       doctest::Contains("cannot read the key file"), std::invalid_argument);
  std::filesystem::remove_all(dir);
}

TEST_CASE("secure metrics: 401 without a good token, 403 without the role, 200 with it") {
  Scrapers cluster;
  MetricsEndpoint endpoint(cluster.server.rest_config());
  CHECK(endpoint.get().status == 401);
  CHECK(endpoint.get("garbage").status == 401);
  auto denied = endpoint.get(cluster.token_of("nobody"));
  CHECK(denied.status == 403);
  CHECK(denied.body == "Authorization denied for user system:serviceaccount:team:nobody\n");
  const auto token = cluster.token_of("prom");
  auto allowed = endpoint.get(token);
  CHECK(allowed.status == 200);
  CHECK(allowed.body == "workqueue_depth 0\n");
  CHECK(endpoint.get(token).status == 200);
  auto counts = reviews(endpoint.registry);
  CHECK(counts["token/reviewed"] == 3);  // garbage, nobody, prom
  CHECK(counts["token/cached"] == 1);    // prom again
  CHECK(counts["subject_access/reviewed"] == 2);
  CHECK(counts["subject_access/cached"] == 1);
  // The ServiceAccount deleted after its token was reviewed: still allowed until the token TTL
  // (controller-runtime's minute) passes -- the cost of the cache, as in controller-runtime.
  REQUIRE(rg::sim::test::call(cluster.port(), "DELETE",
                              "/api/v1/namespaces/team/serviceaccounts/prom", "", cluster.admin)
              .status == 200);
  CHECK(endpoint.get(token).status == 200);
}

TEST_CASE("secure metrics: unknown tokens over the review cap get 401 without a review") {
  Scrapers cluster;
  MetricsAuthConfig config;
  config.reviews_per_second = 0.1;  // no refill within the test
  config.review_burst = 3;
  MetricsEndpoint endpoint(cluster.server.rest_config(), config);
  for (int i = 0; i < 20; ++i) CHECK(endpoint.get("garbage-" + std::to_string(i)).status == 401);
  auto counts = reviews(endpoint.registry);
  CHECK(counts["token/reviewed"] == 3);
  CHECK(counts["token/throttled"] == 17);
}

TEST_CASE("secure metrics: a review that fails is 500") {
  Scrapers cluster;
  auto unreachable = cluster.server.rest_config();
  unreachable.host = "http://127.0.0.1:1";  // nothing listens there
  MetricsEndpoint endpoint(unreachable);
  auto failed = endpoint.get("any-token");
  CHECK(failed.status == 500);
  CHECK(failed.body == "Authentication failed\n");
}

TEST_CASE("secure metrics: TLS >= 1.2, strong ciphers, never h2; a changed certificate is served") {
  Scrapers cluster;
  MetricsEndpoint endpoint(cluster.server.rest_config());
  namespace ssl = asio::ssl;
  // Handshakes with a client context `configure` narrows; the ALPN protocol agreed on, or throws.
  const auto handshake = [&](auto configure) {
    asio::io_context io;
    ssl::context client(ssl::context::tls_client);
    configure(client.native_handle());
    ssl::stream<asio::ip::tcp::socket> stream(io, client);
    stream.next_layer().connect({asio::ip::make_address("127.0.0.1"), endpoint.port()});
    stream.handshake(ssl::stream_base::client);
    const unsigned char* protocol = nullptr;
    unsigned int length = 0;
    SSL_get0_alpn_selected(stream.native_handle(), &protocol, &length);
    return std::string(reinterpret_cast<const char*>(protocol), length);
  };
  CHECK_THROWS(handshake([](SSL_CTX* c) { SSL_CTX_set_max_proto_version(c, TLS1_1_VERSION); }));
  CHECK_THROWS(handshake([](SSL_CTX* c) {  // no forward secrecy, no AEAD: refused
    SSL_CTX_set_max_proto_version(c, TLS1_2_VERSION);
    SSL_CTX_set_cipher_list(c, "AES128-SHA:AES256-SHA:AES128-GCM-SHA256");
  }));
  static constexpr unsigned char kH2AndHttp11[] = "\x02h2\x08http/1.1";
  static constexpr unsigned char kH2[] = "\x02h2";
  CHECK(handshake([](SSL_CTX* c) {
          SSL_CTX_set_alpn_protos(c, kH2AndHttp11, sizeof(kH2AndHttp11) - 1);
        }) == "http/1.1");
  CHECK(handshake([](SSL_CTX* c) { SSL_CTX_set_alpn_protos(c, kH2, sizeof(kH2) - 1); }).empty());
  CHECK(handshake([](SSL_CTX* c) { SSL_CTX_set_max_proto_version(c, TLS1_2_VERSION); }).empty());
  const std::string old_ca = endpoint.ca_pem;
  std::string new_ca;
  endpoint.install(serving_certificate(new_ca));
  bool reloaded = false;
  for (int i = 0; i < 600 && !reloaded; ++i) {  // polled every 50 ms: generous
    try {
      reloaded = tls_call(endpoint.port(), new_ca, "GET", "/metrics").status == 401;
    } catch (const boost::system::system_error&) {
      std::this_thread::sleep_for(50ms);
    }
  }
  CHECK(reloaded);
  CHECK_THROWS_AS(tls_call(endpoint.port(), old_ca, "GET", "/metrics"),
                  boost::system::system_error);
}
