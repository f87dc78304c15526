// Tests of load_kubeconfig: the usual shapes, context override and namespace, merging several
// files like kubectl, and one clear error for each way a kubeconfig can be broken.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <functional>

#include "client/config/base64.hpp"
#include "client/config/config_error.hpp"
#include "client/config/kubeconfig.hpp"
#include "client/config/token_auth.hpp"
#include "test/client/config/temp_dir.hpp"

using namespace rg::client;
using rg::test::kCaPem;
using rg::test::kCertPem;
using rg::test::kKeyPem;
using rg::test::TempDir;

namespace {

std::string full_config() {
  return fmt::format(R"(apiVersion: v1
kind: Config
clusters:
- name: prod
  cluster:
    server: https://prod.example:6443
    certificate-authority-data: {}
- name: dev
  cluster:
    server: 127.0.0.1:6443/
    certificate-authority: certs/ca.crt
    tls-server-name: kubernetes
- name: lab
  cluster:
    server: http://lab:8080
    insecure-skip-tls-verify: true
users:
- name: admin
  user:
    client-certificate-data: {}
    client-key-data: {}
- name: dev-user
  user:
    token: abc
- name: file-user
  user:
    client-certificate: certs/client.crt
    client-key: certs/client.key
    tokenFile: tokens/token
- name: basic-user
  user:
    username: jane
    password: secret
contexts:
- name: prod
  context: {{cluster: prod, user: admin}}
- name: dev
  context: {{cluster: dev, user: dev-user, namespace: team-a}}
- name: lab
  context: {{cluster: lab, user: file-user}}
- name: basic
  context: {{cluster: lab, user: basic-user}}
- name: anonymous
  context: {{cluster: lab}}
current-context: prod
preferences: {{}}
)",
                     base64_encode(kCaPem), base64_encode(kCertPem), base64_encode(kKeyPem));
}

struct Fixture {
  TempDir dir;
  std::filesystem::path config;
  Fixture() {
    dir.write("certs/ca.crt", kCaPem);
    dir.write("certs/client.crt", kCertPem);
    dir.write("certs/client.key", kKeyPem);
    dir.write("tokens/token", "file-token\n");
    config = dir.write("config", full_config());
  }
  RestConfig load(const std::string& context = {}) const {
    return load_kubeconfig({{config}, context});
  }
};

std::string authorization(const RestConfig& rest) {
  REQUIRE(rest.auth != nullptr);
  return rg::test::run(rest.auth->authorization());
}

/// The message of the ConfigError `f` throws.
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

/// The error of loading a kubeconfig with `content`; `{file}` in `expected` is its path.
std::string load_error(const TempDir& dir, std::string_view content,
                       const std::string& context = {}) {
  auto path = dir.write("broken", content);
  return error_of([&] { load_kubeconfig({{path}, context}); });
}

}  // namespace

TEST_CASE("current context with client certificate data") {
  Fixture f;
  RestConfig rest = f.load();
  CHECK(rest.host == "https://prod.example:6443");
  CHECK(rest.tls.ca_pem == kCaPem);
  CHECK(rest.tls.client_cert_pem == kCertPem);
  CHECK(rest.tls.client_key_pem == kKeyPem);
  CHECK_FALSE(rest.tls.insecure_skip_verify);
  CHECK(rest.auth == nullptr);
  CHECK(rest.namespace_ == "default");
  CHECK(rest.source == fmt::format("kubeconfig {} (context \"prod\")", f.config.string()));
}

TEST_CASE("context override, namespace, files relative to the kubeconfig, static token") {
  Fixture f;
  RestConfig rest = f.load("dev");
  CHECK(rest.host == "https://127.0.0.1:6443");
  CHECK(rest.tls.ca_pem == kCaPem);
  CHECK(rest.tls.server_name == "kubernetes");
  CHECK(rest.namespace_ == "team-a");
  CHECK(authorization(rest) == "Bearer abc");
  CHECK(rest.source.find("context \"dev\"") != std::string::npos);
}

TEST_CASE("insecure cluster, certificate files and token file") {
  Fixture f;
  RestConfig rest = f.load("lab");
  CHECK(rest.host == "http://lab:8080");
  CHECK(rest.tls.insecure_skip_verify);
  CHECK(rest.tls.ca_pem.empty());
  CHECK(rest.tls.client_cert_pem == kCertPem);
  CHECK(rest.tls.client_key_pem == kKeyPem);
  CHECK(dynamic_cast<TokenFile*>(rest.auth.get()) != nullptr);
  CHECK(authorization(rest) == "Bearer file-token");
}

TEST_CASE("basic auth and anonymous users") {
  Fixture f;
  CHECK(authorization(f.load("basic")) == "Basic " + base64_encode("jane:secret"));
  CHECK(f.load("anonymous").auth == nullptr);
}

TEST_CASE("merging several files like kubectl") {
  TempDir dir;
  dir.write("b/ca.crt", kCaPem);
  auto a = dir.write("a/config", R"(clusters:
- name: shared
  cluster: {server: https://from-a:6443}
users:
- name: u
  user: {token: token-a}
contexts:
- name: ctx-a
  context: {cluster: shared, user: u}
)");
  auto b = dir.write("b/config", R"(clusters:
- name: shared
  cluster: {server: https://from-b:6443}
- name: only-b
  cluster: {server: https://only-b:6443, certificate-authority: ca.crt}
users:
- name: u
  user: {token: token-b}
contexts:
- name: ctx-b
  context: {cluster: shared, user: u, namespace: from-b}
- name: ctx-only-b
  context: {cluster: only-b, user: u}
current-context: ctx-b
)");
  auto c = dir.write("c/config", "current-context: ctx-a\n");
  std::vector<std::filesystem::path> paths{a, dir / "missing", b, c};

  // current-context from the first file that sets it (b); entries from the first file that
  // defines the name (a's cluster and user).
  RestConfig rest = load_kubeconfig({paths, "", true});
  CHECK(rest.host == "https://from-a:6443");
  CHECK(authorization(rest) == "Bearer token-a");
  CHECK(rest.namespace_ == "from-b");
  CHECK(rest.source ==
        fmt::format("kubeconfig {}:{}:{} (context \"ctx-b\")", a.string(), b.string(), c.string()));

  // b's relative CA path is relative to b's folder, not the first file's.
  RestConfig only_b = load_kubeconfig({paths, "ctx-only-b", true});
  CHECK(only_b.host == "https://only-b:6443");
  CHECK(only_b.tls.ca_pem == kCaPem);

  // Missing files are an error when not skipped, and when none exists.
  CHECK(error_of([&] {
          load_kubeconfig({paths, "", false});
        }).starts_with((dir / "missing").string() + ": cannot read the kubeconfig file"));
  CHECK(error_of([&] {
          load_kubeconfig({{dir / "x", dir / "y"}, "", true});
        }) ==
        fmt::format("{}:{}: no kubeconfig file exists (check $KUBECONFIG or pass --kubeconfig)",
                    (dir / "x").string(), (dir / "y").string()));
}

TEST_CASE("an empty kubeconfig has no current context") {
  TempDir dir;
  auto path = dir.write("config", "");
  CHECK(error_of([&] { load_kubeconfig({{path}}); }) ==
        path.string() +
            ": current-context is not set (run `kubectl config use-context NAME` or pass "
            "--context)");
}

TEST_CASE("broken kubeconfigs give one clear error naming file, line, entry and problem") {
  TempDir dir;
  std::string file = (dir / "broken").string();
  auto expect = [&](std::string_view content, const std::string& expected,
                    const std::string& context = {}) {
    CAPTURE(content);
    CHECK(load_error(dir, content, context) ==
          fmt::format(fmt::runtime(expected), fmt::arg("file", file)));
  };

  expect("clusters:\n- name: a\n  cluster: {server: [unclosed\n",
         "{file}:4: not a valid kubeconfig: end of sequence flow not found (fix the YAML, e.g. "
         "check the indentation and quoting near that line)");
  expect("clusters: foo\n", "{file}:1: clusters must be a list");
  expect("- a\n- b\n",
         "{file}:1: the document is not a mapping (a kubeconfig starts with "
         "apiVersion: v1)");
  expect("clusters:\n- cluster: {server: https://x}\n",
         "{file}:2: an entry of clusters has no name (give every cluster a name)");
  expect("clusters:\n- name: a\n  cluster: {server: https://x}\n- name: a\n  cluster: {}\n",
         "{file}:4: cluster \"a\": duplicate name \"a\" in clusters (names must be unique within "
         "a file)");
  expect("clusters:\n- name: a\n  cluster:\n    server: [1, 2]\n",
         "{file}:4: cluster \"a\": server must be a string");
  expect("clusters:\n- name: a\n  cluster:\n    insecure-skip-tls-verify: maybe\n",
         "{file}:4: cluster \"a\": insecure-skip-tls-verify must be true or false");

  const std::string good_cluster = "clusters:\n- name: prod\n  cluster: {server: https://p}\n";
  expect(good_cluster +
             "contexts:\n- name: dev\n  context:\n    cluster: staging\n"
             "current-context: dev\n",
         "{file}:7: context \"dev\": cluster \"staging\" is not defined (defined clusters: prod)");
  expect(good_cluster +
             "contexts:\n- name: dev\n  context:\n    cluster: prod\n    user: "
             "nobody\ncurrent-context: dev\n",
         "{file}:8: context \"dev\": user \"nobody\" is not defined (defined users: none)");
  expect(good_cluster + "contexts:\n- name: dev\n  context: {}\ncurrent-context: dev\n",
         "{file}:5: context \"dev\": the context names no cluster (set "
         "contexts[].context.cluster)");
  expect(good_cluster + "current-context: nope\n",
         "{file}:4: current-context: context \"nope\" is not defined (defined contexts: none)");
  expect(good_cluster + "contexts:\n- name: dev\n  context: {cluster: prod}\n",
         "{file}: --context: context \"qa\" is not defined (defined contexts: dev)", "qa");
  expect(
      "clusters:\n- name: a\n  cluster: {tls-server-name: x}\ncontexts:\n- name: c\n  "
      "context: {cluster: a}\ncurrent-context: c\n",
      "{file}:2: cluster \"a\": the cluster has no server (set clusters[].cluster.server to "
      "the API server's URL, e.g. https://127.0.0.1:6443)");
  expect(
      "clusters:\n- name: a\n  cluster: {server: 'ftp://x'}\ncontexts:\n- name: c\n  "
      "context: {cluster: a}\ncurrent-context: c\n",
      "{file}:3: cluster \"a\": server \"ftp://x\" is not an http(s) URL (use e.g. "
      "https://127.0.0.1:6443)");

  const std::string ctx =
      "contexts:\n- name: c\n  context: {cluster: a}\n"
      "current-context: c\n";
  expect(
      "clusters:\n- name: a\n  cluster:\n    server: https://a\n    certificate-authority: "
      "/nonexistent/ca.crt\n" +
          ctx,
      "{file}:5: cluster \"a\": cannot read the certificate-authority file /nonexistent/ca.crt "
      "(check the path (relative paths are relative to the kubeconfig's folder) and the "
      "file's permissions)");
  expect(
      "clusters:\n- name: a\n  cluster:\n    server: https://a\n    "
      "certificate-authority-data: not*base64\n" +
          ctx,
      "{file}:5: cluster \"a\": certificate-authority-data is not valid base64 (it must hold "
      "the base64 of the PEM text, e.g. the output of `base64 -w0 certificate-authority.pem`)");
  expect(
      "clusters:\n- name: a\n  cluster:\n    server: https://a\n    "
      "certificate-authority-data: " +
          base64_encode("hello") + "\n" + ctx,
      "{file}:5: cluster \"a\": certificate-authority-data does not hold PEM text with "
      "CERTIFICATE");
  expect(fmt::format("clusters:\n- name: a\n  cluster:\n    server: https://a\n    "
                     "insecure-skip-tls-verify: true\n    certificate-authority-data: {}\n{}",
                     base64_encode(kCaPem), ctx),
         "{file}:5: cluster \"a\": specifying a root certificates file with the insecure flag is "
         "not allowed (remove either insecure-skip-tls-verify or the certificate authority)");

  const std::string cluster =
      "clusters:\n- name: a\n  cluster: {server: https://a}\ncontexts:\n- name: c\n  context: "
      "{cluster: a, user: u}\ncurrent-context: c\n";
  expect(cluster + "users:\n- name: u\n  user:\n    client-certificate-data: " +
             base64_encode(kCertPem) + "\n",
         "{file}:9: user \"u\": client-certificate is set without client-key (client "
         "certificate authentication needs both (or their -data forms))");
  expect(cluster + "users:\n- name: u\n  user:\n    client-key-data: '%%%'\n",
         "{file}:11: user \"u\": client-key-data is not valid base64 (it must hold the base64 of "
         "the PEM text, e.g. the output of `base64 -w0 client-key.pem`)");
  expect(cluster + "users:\n- name: u\n  user: {token: t, username: jane}\n",
         "{file}:9: user \"u\": more than one authentication method found: token and basicAuth; "
         "only one is allowed");
  expect(cluster + "users:\n- name: u\n  user:\n    tokenFile: /nonexistent/token\n",
         "{file}:11: user \"u\": tokenFile /nonexistent/token: cannot read the token file (check "
         "that the file exists, is readable and holds a bearer token)");
  expect(cluster + "users:\n- name: u\n  user:\n    token: t\n    as: admin\n",
         "{file}:12: user \"u\": impersonation (as) is not supported (use a user whose own "
         "credentials have the access needed)");
  expect(cluster + "users:\n- name: u\n  user:\n    auth-provider: {name: gcp}\n",
         "{file}:11: user \"u\": auth-provider \"gcp\" is not supported (kubectl removed these "
         "plugins) (use an exec credential plugin instead, e.g. kubelogin or the cloud's CLI)");
  expect(cluster +
             "users:\n- name: u\n  user:\n    exec:\n      apiVersion: "
             "client.authentication.k8s.io/v1\n      command: plugin\n",
         "{file}:12: user \"u\": interactiveMode must be specified to use the exec plugin with "
         "apiVersion client.authentication.k8s.io/v1 (set interactiveMode: Never or "
         "IfAvailable)");
  expect(cluster +
             "users:\n- name: u\n  user:\n    exec:\n      apiVersion: "
             "client.authentication.k8s.io/v1alpha1\n      command: plugin\n",
         "{file}:12: user \"u\": exec apiVersion \"client.authentication.k8s.io/v1alpha1\" is "
         "not supported (use client.authentication.k8s.io/v1 or "
         "client.authentication.k8s.io/v1beta1)");
  expect(cluster +
             "users:\n- name: u\n  user:\n    exec: {apiVersion: "
             "client.authentication.k8s.io/v1beta1}\n",
         "{file}:11: user \"u\": command must be specified to use the exec authentication "
         "plugin");
}

TEST_CASE("ConfigError keeps its parts") {
  TempDir dir;
  auto path = dir.write("config", "clusters: 3\n");
  try {
    load_kubeconfig({{path}});
    FAIL("loaded");
  } catch (const ConfigError& e) {
    CHECK(e.file() == path.string());
    CHECK(e.line() == 1);
    CHECK(e.problem() == "clusters must be a list");
  }
}
