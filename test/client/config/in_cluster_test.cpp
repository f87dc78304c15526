// Tests of load_in_cluster and resolve_config's order, with a fake service-account folder.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "client/config/config_error.hpp"
#include "client/config/resolve.hpp"
#include "client/config/token_auth.hpp"
#include "test/client/config/temp_dir.hpp"

using namespace rg::client;
using rg::test::kCaPem;
using rg::test::run;
using rg::test::TempDir;

namespace {

/// Sets (or unsets, for nullptr) an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value != nullptr) {
      ::setenv(name, value, 1);
    } else {
      ::unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

InClusterOptions fake_pod(const TempDir& dir, std::string host = "10.96.0.1") {
  dir.write("sa/token", "pod-token\n");
  dir.write("sa/ca.crt", kCaPem);
  dir.write("sa/namespace", "apps\n");
  return {dir / "sa", std::move(host), "443"};
}

}  // namespace

TEST_CASE("in-cluster configuration from the service-account folder") {
  TempDir dir;
  auto rest = load_in_cluster(fake_pod(dir));
  REQUIRE(rest.has_value());
  CHECK(rest->host == "https://10.96.0.1:443");
  CHECK(rest->tls.ca_pem == kCaPem);
  CHECK(rest->namespace_ == "apps");
  CHECK(run(rest->auth->authorization()) == "Bearer pod-token");
  CHECK(rest->source == fmt::format("in-cluster service account ({})", (dir / "sa").string()));

  // The projected token rotates: the provider follows it.
  dir.write("sa/token", "rotated-pod-token\n");
  CHECK(run(rest->auth->authorization()) == "Bearer rotated-pod-token");
}

TEST_CASE("in-cluster edge cases") {
  TempDir dir;
  CHECK_FALSE(load_in_cluster({dir / "sa", "", "443"}).has_value());
  CHECK_FALSE(load_in_cluster({dir / "sa", "10.0.0.1", ""}).has_value());

  auto ipv6 = load_in_cluster(fake_pod(dir, "fd00::1"));
  REQUIRE(ipv6.has_value());
  CHECK(ipv6->host == "https://[fd00::1]:443");

  // No CA file: system roots; no namespace file and no $POD_NAMESPACE: "default".
  ScopedEnv no_pod_namespace("POD_NAMESPACE", nullptr);
  std::filesystem::remove(dir / "sa" / "ca.crt");
  std::filesystem::remove(dir / "sa" / "namespace");
  auto bare = load_in_cluster({dir / "sa", "10.0.0.1", "6443"});
  REQUIRE(bare.has_value());
  CHECK(bare->tls.ca_pem.empty());
  CHECK(bare->namespace_ == "default");

  std::filesystem::remove(dir / "sa" / "token");
  try {
    load_in_cluster({dir / "sa", "10.0.0.1", "6443"});
    FAIL("loaded without a token");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()) ==
          (dir / "sa" / "token").string() +
              ": in-cluster service account: cannot read the token file (KUBERNETES_SERVICE_HOST "
              "is set but the service-account token is missing; check "
              "automountServiceAccountToken, or run with --kubeconfig)");
  }
}

TEST_CASE("resolve_config order: --kubeconfig, $KUBECONFIG, in-cluster, ~/.kube/config") {
  TempDir dir;
  auto kubeconfig = [&](std::string_view name, std::string_view server) {
    return dir.write(name, fmt::format("clusters:\n- name: c\n  cluster: {{server: {}}}\n"
                                       "contexts:\n- name: x\n  context: {{cluster: c}}\n"
                                       "- name: y\n  context: {{cluster: c, namespace: ns-y}}\n"
                                       "current-context: x\n",
                                       server));
  };
  auto explicit_path = kubeconfig("explicit", "https://explicit");
  auto env_path = kubeconfig("env", "https://env");
  kubeconfig("home/.kube/config", "https://home");
  ResolveOptions options;
  options.kubeconfig = explicit_path.string();
  options.kubeconfig_env = env_path.string();
  options.home = dir / "home";
  options.in_cluster = fake_pod(dir);

  CHECK(resolve_config(options).host == "https://explicit");
  CHECK(resolve_config(options).source.starts_with("--kubeconfig kubeconfig " +
                                                   explicit_path.string()));
  options.context = "y";
  CHECK(resolve_config(options).namespace_ == "ns-y");
  options.context.clear();

  options.kubeconfig.clear();
  CHECK(resolve_config(options).host == "https://env");
  CHECK(resolve_config(options).source.starts_with("$KUBECONFIG kubeconfig "));

  options.kubeconfig_env = "";
  CHECK(resolve_config(options).host == "https://10.96.0.1:443");
  CHECK(resolve_config(options).source.starts_with("in-cluster"));

  options.in_cluster.service_host = "";
  CHECK(resolve_config(options).host == "https://home");

  options.home = dir / "nohome";
  CHECK_THROWS_WITH_AS(
      resolve_config(options),
      (fmt::format("configuration: no configuration found; tried --kubeconfig (not given), "
                   "$KUBECONFIG (not set), in-cluster (KUBERNETES_SERVICE_HOST/PORT not set), "
                   "{} (does not exist) (pass --kubeconfig, set $KUBECONFIG, or run in a pod "
                   "with a service account)",
                   (dir / "nohome" / ".kube" / "config").string())
           .c_str()),
      ConfigError);

  // A --kubeconfig that does not exist is an error, not a fall-through.
  options.kubeconfig = (dir / "nope").string();
  CHECK_THROWS_AS(resolve_config(options), ConfigError);
}

TEST_CASE("unset options fall back to the environment") {
  TempDir dir;
  dir.write("sa/token", "pod-token");
  auto kubeconfig = [&](std::string_view name, std::string_view server) {
    return dir
        .write(name, fmt::format("clusters:\n- name: c\n  cluster: {{server: {}}}\ncontexts:\n"
                                 "- name: x\n  context: {{cluster: c}}\ncurrent-context: x\n",
                                 server))
        .string();
  };
  std::string env_file = kubeconfig("env", "https://from-env");
  kubeconfig("home/.kube/config", "https://from-home");
  ResolveOptions options;
  options.in_cluster.service_account_dir = dir / "sa";

  ScopedEnv no_host("KUBERNETES_SERVICE_HOST", nullptr);
  ScopedEnv no_port("KUBERNETES_SERVICE_PORT", nullptr);
  ScopedEnv home("HOME", (dir / "home").c_str());
  {
    ScopedEnv list("KUBECONFIG", (dir / "missing").string().append(":").append(env_file).c_str());
    CHECK(resolve_config(options).host == "https://from-env");
  }
  {
    ScopedEnv empty("KUBECONFIG", "");
    CHECK(resolve_config(options).host == "https://from-home");
    ScopedEnv host("KUBERNETES_SERVICE_HOST", "10.0.0.1");
    ScopedEnv port("KUBERNETES_SERVICE_PORT", "6443");
    ScopedEnv pod_ns("POD_NAMESPACE", "from-downward-api");
    RestConfig in_cluster = resolve_config(options);
    CHECK(in_cluster.host == "https://10.0.0.1:6443");
    CHECK(in_cluster.namespace_ == "from-downward-api");
  }
}
