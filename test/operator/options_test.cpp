// The operator's flags: names, defaults, repeatable --namespace, and clear errors.
#include <doctest/doctest.h>

#include <CLI/CLI.hpp>

#include <stdexcept>

#include "operator/options.hpp"

namespace {

rg::op::Options parse(std::vector<std::string> args) {
  CLI::App app;
  rg::op::Options options;
  rg::op::add_flags(app, options);
  std::reverse(args.begin(), args.end());
  app.parse(args);
  return options;
}

}  // namespace

TEST_CASE("defaults follow controller-runtime") {
  const auto o = parse({});
  // kubebuilder v4's scaffold with its metrics patch: HTTPS on :8443, probes plain on :8081.
  CHECK(o.metrics_bind_address == ":8443");
  CHECK(o.metrics_secure);
  CHECK(o.metrics_cert_path.empty());
  CHECK(o.metrics_cert_name == "tls.crt");
  CHECK(o.metrics_cert_key == "tls.key");
  CHECK(o.health_probe_bind_address == ":8081");
  CHECK_FALSE(o.leader_elect);
  CHECK(o.namespaces.empty());
  CHECK(o.max_unhealthy_node_fraction == doctest::Approx(0.55));
  CHECK_NOTHROW(rg::op::validate(o));
}

TEST_CASE("flags parse, --namespace repeats") {
  const auto o = parse({"--namespace", "a", "--namespace", "b", "--leader-elect", "--dry-run",
                        "--workers", "4", "-vv", "--log-format", "json", "--max-total-surge", "10",
                        "--metrics-bind-address", "0"});
  CHECK(o.namespaces == std::vector<std::string>{"a", "b"});
  CHECK(o.leader_elect);
  CHECK(o.dry_run);
  CHECK(o.workers == 4);
  CHECK(o.verbosity == 2);
  CHECK(o.log_format == "json");
  CHECK(o.max_total_surge == 10);
  CHECK_NOTHROW(rg::op::validate(o));
}

TEST_CASE("secure metrics flags: --metrics-secure=false, certificates, one port refused") {
  CHECK_FALSE(parse({"--metrics-secure=false"}).metrics_secure);
  CHECK_FALSE(parse({"--no-metrics-secure"}).metrics_secure);
  const auto o = parse({"--metrics-cert-path", "/certs", "--metrics-cert-name", "a.pem",
                        "--metrics-cert-key", "b.pem", "--metrics-bind-address", ":9443"});
  CHECK(o.metrics_cert_path == "/certs");
  CHECK(o.metrics_cert_name == "a.pem");
  CHECK(o.metrics_cert_key == "b.pem");
  CHECK(o.metrics_bind_address == ":9443");
  CHECK_NOTHROW(rg::op::validate(o));
  // The probes stay plain HTTP: one port for both needs --metrics-secure=false.
  CHECK_THROWS_WITH_AS(rg::op::validate(parse({"--metrics-bind-address", ":8081"})),
                       doctest::Contains("must differ from --health-probe-bind-address"),
                       std::invalid_argument);
  CHECK_NOTHROW(
      rg::op::validate(parse({"--metrics-bind-address", ":8081", "--metrics-secure=false"})));
  // Port 0 twice is two free ports, two servers.
  CHECK_NOTHROW(rg::op::validate(parse(
      {"--metrics-bind-address", "127.0.0.1:0", "--health-probe-bind-address", "127.0.0.1:0"})));
  CHECK_THROWS(parse({"--metrics-review-qps", "0"}));
}

TEST_CASE("--namespace also takes a comma-separated list, and refuses what is not a namespace") {
  const auto o = parse({"--namespace", "a,b", "--namespace=c"});
  CHECK(o.namespaces == std::vector<std::string>{"a", "b", "c"});
  CHECK_NOTHROW(rg::op::validate(o));

  const auto message = [](std::vector<std::string> args) -> std::string {
    try {
      rg::op::validate(parse(std::move(args)));
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "accepted";
  };
  CHECK(message({"--namespace", "Shop"}).find("--namespace: \"Shop\" is not a namespace") == 0);
  CHECK(message({"--namespace", "-a"}).find("is not a namespace") != std::string::npos);
  CHECK(message({"--namespace", "a,b,a"}) == "--namespace: \"a\" is given twice");
  rg::op::Options empty;
  empty.namespaces = {""};
  CHECK_THROWS_WITH_AS(rg::op::validate(empty), doctest::Contains("\"\" is not a namespace"),
                       std::invalid_argument);
}

TEST_CASE("--cache-consistency-check-period is off by default and takes a duration") {
  CHECK(parse({}).cache_consistency_check_period == "0");
  const auto o = parse({"--cache-consistency-check-period", "10m"});
  CHECK(o.cache_consistency_check_period == "10m");
  CHECK_NOTHROW(rg::op::validate(o));
  CHECK_THROWS_WITH_AS(rg::op::validate(parse({"--cache-consistency-check-period=often"})),
                       doctest::Contains("--cache-consistency-check-period"),
                       std::invalid_argument);
}

TEST_CASE("--detect-hpa is on by default and can be turned off") {
  CHECK(parse({}).detect_hpa);
  CHECK(parse({"--detect-hpa"}).detect_hpa);
  CHECK_FALSE(parse({"--detect-hpa=false"}).detect_hpa);
  CHECK_FALSE(parse({"--no-detect-hpa"}).detect_hpa);
}

TEST_CASE("the actions on suspect nodes need the node Lease signal") {
  CHECK_NOTHROW(rg::op::validate(parse({"--mark-suspect-pods-not-ready"})));
  for (const char* flag : {"--taint-suspect-nodes", "--mark-suspect-pods-not-ready"}) {
    CAPTURE(flag);
    const std::string expected = std::string(flag) + " acts on nodes";
    CHECK_THROWS_WITH_AS(rg::op::validate(parse({flag, "--node-lease-grace=0"})),
                         doctest::Contains(expected.c_str()), std::invalid_argument);
  }
  CHECK_NOTHROW(rg::op::validate(parse({"--node-lease-grace=0"})));
}

TEST_CASE("bad values name the flag") {
  CHECK_THROWS_AS(parse({"--workers", "0"}), CLI::ValidationError);
  CHECK_THROWS_AS(parse({"--log-format", "xml"}), CLI::ValidationError);
  auto o = parse({"--node-grace-period", "soon"});
  CHECK_THROWS_WITH(rg::op::validate(o),
                    doctest::Contains("--node-grace-period: \"soon\" is not a duration"));
  o = parse({"--deployment-selector", "tier in (web"});
  CHECK_THROWS_WITH(rg::op::validate(o), doctest::Contains("--deployment-selector"));
  o = parse({"--default-max-surge", "lots"});
  CHECK_THROWS_WITH(rg::op::validate(o), doctest::Contains("--default-max-surge"));
  o = parse({"--health-probe-bind-address", "8081"});
  CHECK_THROWS_WITH(rg::op::validate(o), doctest::Contains("--health-probe-bind-address"));
}

TEST_CASE("--sync-period: 10m by default, at least a second, 0 for never") {
  CHECK(parse({}).sync_period == "10m");
  CHECK_NOTHROW(rg::op::validate(parse({"--sync-period", "1h"})));
  CHECK_NOTHROW(rg::op::validate(parse({"--sync-period", "0"})));
  CHECK_THROWS_WITH_AS(rg::op::validate(parse({"--sync-period=500ms"})),
                       doctest::Contains("--sync-period: 500ms is shorter than the minimum"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(rg::op::validate(parse({"--sync-period=daily"})),
                       doctest::Contains("--sync-period"), std::invalid_argument);
}

TEST_CASE("--watch-list is on by default and can be turned off") {
  CHECK(parse({}).watch_list);
  CHECK_FALSE(parse({"--watch-list=false"}).watch_list);
  CHECK_FALSE(parse({"--no-watch-list"}).watch_list);
}

TEST_CASE("--kube-api-qps and --kube-api-burst: no client-side limit by default") {
  const auto defaults = parse({});
  CHECK(defaults.kube_api_qps == 0);
  CHECK(defaults.kube_api_burst == 30);
  const auto o = parse({"--kube-api-qps", "20", "--kube-api-burst", "30"});
  CHECK(o.kube_api_qps == doctest::Approx(20));
  CHECK(o.kube_api_burst == 30);
  CHECK_NOTHROW(rg::op::validate(o));
  CHECK_THROWS_AS(parse({"--kube-api-qps", "-1"}), CLI::ValidationError);
  CHECK_THROWS_WITH_AS(rg::op::validate(parse({"--kube-api-qps", "5", "--kube-api-burst", "0"})),
                       doctest::Contains("--kube-api-burst: must be at least 1"),
                       std::invalid_argument);
}
