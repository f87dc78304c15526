// Tests of ExecCredential with small shell-script plugins written into a temp folder: v1 and
// v1beta1, caching until expirationTimestamp, invalidate(), KUBERNETES_EXEC_INFO, failures,
// timeouts, client certificates (both halves, valid PEM, matching key, identity across runs), and
// that a running plugin does not block the io_context; callers share a run, and one waiting for
// it can be cancelled.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json.hpp>
#include <boost/system/system_error.hpp>

#include <fstream>
#include <sstream>

#include "client/cert/certificates.hpp"
#include "client/config/base64.hpp"
#include "client/config/exec_credential.hpp"
#include "client/config/kubeconfig.hpp"
#include "client/model/time.hpp"
#include "test/client/config/temp_dir.hpp"

using namespace rg::client;
using rg::test::kCaPem;
using rg::test::kCertPem;
using rg::test::kKeyPem;
using rg::test::run;
using rg::test::TempDir;
using std::chrono::system_clock;

namespace {

constexpr std::string_view kV1 = "client.authentication.k8s.io/v1";
constexpr std::string_view kV1beta1 = "client.authentication.k8s.io/v1beta1";

/// Prints an ExecCredential of $PLUGIN_API_VERSION with token "tok-<first arg>-<run number>",
/// counting its runs in $STATE/runs and saving KUBERNETES_EXEC_INFO to $STATE/info.
constexpr std::string_view kTokenPlugin = R"(#!/bin/sh
echo run >> "$STATE/runs"
n=$(wc -l < "$STATE/runs" | tr -d ' ')
printf '%s' "$KUBERNETES_EXEC_INFO" > "$STATE/info"
expiry=""
if [ -n "$EXPIRY" ]; then expiry=",\"expirationTimestamp\":\"$EXPIRY\""; fi
echo "{\"apiVersion\":\"$PLUGIN_API_VERSION\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\"tok-$1-$n\"$expiry}}"
)";

struct Plugin {
  TempDir dir;
  system_clock::time_point now = parse_rfc3339("2029-12-31T23:00:00Z").value();

  ExecConfig config(std::string_view api_version, std::string expiry = "2030-01-01T00:00:00Z") {
    auto script = dir.write("plugin.sh", kTokenPlugin, 0755);
    ExecConfig c;
    c.api_version = api_version;
    c.command = script.string();
    c.args = {"a"};
    c.env = {{"STATE", dir.path().string()},
             {"PLUGIN_API_VERSION", std::string(api_version)},
             {"EXPIRY", std::move(expiry)}};
    return c;
  }

  ExecCredential::Clock clock() {
    return [this] { return now; };
  }

  std::string read(std::string_view name) const {
    std::ifstream in(dir / name);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
};

/// A plugin that waits until the file $GO exists (`dir / "go"`), then prints `token`.
ExecConfig gated_plugin(TempDir& dir, std::string_view token) {
  ExecConfig config;
  config.api_version = kV1;
  config.timeout = std::chrono::seconds(20);
  config.command = dir.write("plugin.sh",
                             fmt::format(R"(#!/bin/sh
while [ ! -e "$GO" ]; do sleep 0.01; done
echo '{{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{{"token":"{}"}}}}'
)",
                                         token),
                             0755)
                       .string();
  config.env = {{"GO", (dir / "go").string()}};
  return config;
}

/// The message of the ExecPluginError the plugin's first run gives.
std::string failure_of(const std::string& script, ExecConfig config = {}) {
  TempDir dir;
  config.api_version = kV1;
  config.command = dir.write("plugin.sh", script, 0755).string();
  ExecCredential credential(config);
  try {
    run(credential.authorization());
  } catch (const ExecPluginError& e) {
    std::string message = e.what();
    // Make the message independent of the temp folder.
    if (auto at = message.find(config.command); at != std::string::npos) {
      message.replace(at, config.command.size(), "PLUGIN");
    }
    return message;
  }
  return "no error";
}

/// The ExecPluginError message of a plugin that prints an ExecCredential with `status`.
std::string failure_with_status(const boost::json::object& status) {
  TempDir files;
  boost::json::object credential{
      {"apiVersion", kV1}, {"kind", "ExecCredential"}, {"status", status}};
  auto output = files.write("credential.json", boost::json::serialize(credential));
  return failure_of(fmt::format("#!/bin/sh\ncat '{}'\n", output.string()));
}

}  // namespace

TEST_CASE("v1 plugin: token cached until expirationTimestamp, invalidate forces a re-run") {
  Plugin p;
  ExecCredential credential(p.config(kV1), {}, p.clock());
  CHECK(run(credential.authorization()) == "Bearer tok-a-1");
  CHECK(run(credential.authorization()) == "Bearer tok-a-1");
  CHECK(credential.runs() == 1);
  CHECK(p.read("runs") == "run\n");

  p.now = parse_rfc3339("2030-01-01T00:00:00Z").value();  // expired at that instant
  CHECK(run(credential.authorization()) == "Bearer tok-a-2");
  CHECK(credential.runs() == 2);

  credential.invalidate();  // e.g. after a 401
  CHECK(run(credential.authorization()) == "Bearer tok-a-3");
  CHECK(credential.runs() == 3);

  auto info = boost::json::parse(p.read("info"));
  CHECK(info == boost::json::parse(
                    R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",
                        "spec":{"interactive":false}})"));
}

TEST_CASE("v1beta1 plugin without expiry: cached until invalidated") {
  Plugin p;
  ExecCredential credential(p.config(kV1beta1, ""), {}, p.clock());
  CHECK(run(credential.authorization()) == "Bearer tok-a-1");
  p.now += std::chrono::hours(24 * 365);
  CHECK(run(credential.authorization()) == "Bearer tok-a-1");
  CHECK(credential.runs() == 1);
  credential.invalidate();
  CHECK(run(credential.authorization()) == "Bearer tok-a-2");
}

TEST_CASE("provideClusterInfo passes the cluster in KUBERNETES_EXEC_INFO") {
  Plugin p;
  ExecConfig config = p.config(kV1);
  config.provide_cluster_info = true;
  ExecCredential credential(config, {"https://api:6443", "kubernetes", false, std::string(kCaPem)},
                            p.clock());
  run(credential.authorization());
  auto info = boost::json::parse(p.read("info"));
  CHECK(info.at("spec").at("cluster") ==
        boost::json::parse(fmt::format(
            R"({{"server":"https://api:6443","tls-server-name":"kubernetes",
                "certificate-authority-data":"{}"}})",
            base64_encode(kCaPem))));
  CHECK(credential.exec_info() == p.read("info"));
}

TEST_CASE("plugin failures name the command, exit status and stderr") {
  CHECK(failure_of("#!/bin/sh\necho 'please log in first' >&2\nexit 3\n") ==
        "exec plugin PLUGIN failed with exit status 3: please log in first");
  CHECK(failure_of("#!/bin/sh\nexit 1\n") ==
        "exec plugin PLUGIN failed with exit status 1 and wrote nothing to stderr");
  CHECK(failure_of("#!/bin/sh\nkill -9 $$\n") ==
        "exec plugin PLUGIN was killed by signal 9 and "
        "wrote nothing to stderr");
  CHECK(failure_of("#!/bin/sh\necho not json\n")
            .starts_with("exec plugin PLUGIN: its output is not JSON ("));
  CHECK(failure_of("#!/bin/sh\necho '[1]'\n") ==
        "exec plugin PLUGIN: its output is not a JSON "
        "object");
  CHECK(failure_of(R"(#!/bin/sh
echo '{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"t"}}'
)") == "exec plugin PLUGIN: it is configured to use API version client.authentication.k8s.io/v1, "
       "plugin returned version client.authentication.k8s.io/v1beta1");
  CHECK(failure_of(R"(#!/bin/sh
echo '{"apiVersion":"client.authentication.k8s.io/v1","kind":"Status"}'
)") == "exec plugin PLUGIN: it returned kind \"Status\", expected ExecCredential");
  CHECK(failure_of(R"(#!/bin/sh
echo '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential"}'
)") == "exec plugin PLUGIN: it didn't return a status field");
  CHECK(failure_of(R"(#!/bin/sh
echo '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{}}'
)") == "exec plugin PLUGIN: it didn't return a token or a client certificate (status.token, "
       "or status.clientCertificateData with status.clientKeyData)");
  CHECK(failure_of(R"(#!/bin/sh
echo '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"t","expirationTimestamp":"soon"}}'
)") == "exec plugin PLUGIN: its expirationTimestamp \"soon\" is not an RFC 3339 time");
  ExecConfig always;
  always.interactive_mode = "Always";
  CHECK(failure_of("#!/bin/sh\n", always)
            .starts_with(
                "exec plugin PLUGIN needs an interactive terminal (interactiveMode: Always)"));
}

TEST_CASE("a missing plugin shows the install hint") {
  ExecConfig config;
  config.api_version = kV1;
  config.command = "/nonexistent/kube-login";
  config.install_hint = "Install kube-login from your platform team.\n";
  ExecCredential credential(config);
  CHECK_THROWS_WITH_AS(run(credential.authorization()),
                       "exec plugin /nonexistent/kube-login: executable /nonexistent/kube-login "
                       "not found\n\nInstall kube-login from your platform team.",
                       ExecPluginError);
  CHECK(credential.runs() == 1);
}

TEST_CASE("a hanging plugin is killed at its timeout, with everything it started") {
  ExecConfig config;
  config.timeout = std::chrono::milliseconds(200);
  // The sleep is a grandchild holding stdout open: only a process-group kill ends it.
  CHECK(failure_of("#!/bin/sh\necho 'waiting for the browser' >&2\nsleep 600\n", config) ==
        "exec plugin PLUGIN did not finish within 200ms and was killed: waiting for the browser");
}

TEST_CASE("a running plugin does not block the io_context") {
  // The plugin waits until another coroutine on the same single-threaded io_context has run;
  // if running the plugin blocked the thread, that coroutine could never run and the plugin
  // would hit its timeout instead of returning a token.
  TempDir dir;
  ExecCredential credential(gated_plugin(dir, "after-go"));

  boost::asio::io_context io;
  std::string header;
  boost::asio::co_spawn(
      io, [&]() -> boost::asio::awaitable<void> { header = co_await credential.authorization(); },
      boost::asio::detached);
  boost::asio::co_spawn(
      io,
      [&]() -> boost::asio::awaitable<void> {
        dir.write("go", "");
        co_return;
      },
      boost::asio::detached);
  io.run();
  CHECK(header == "Bearer after-go");
}

TEST_CASE("callers arriving while the plugin runs share that run") {
  // The plugin blocks until $GO exists, so the second caller surely arrives mid-run; a third
  // coroutine creates $GO. $FAIL makes the run fail, for the error case.
  TempDir dir;
  ExecConfig config;
  config.api_version = kV1;
  config.timeout = std::chrono::seconds(20);
  config.command = dir.write("plugin.sh", R"(#!/bin/sh
while [ ! -e "$GO" ]; do sleep 0.01; done
echo run >> "$STATE/runs"
if [ -e "$FAIL" ]; then echo 'denied' >&2; exit 2; fi
echo '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"shared"}}'
)",
                             0755)
                       .string();
  config.env = {{"GO", (dir / "go").string()},
                {"FAIL", (dir / "fail").string()},
                {"STATE", dir.path().string()}};

  auto run_two_callers = [&](ExecCredential& credential) {
    std::filesystem::remove(dir / "go");
    boost::asio::io_context io;
    std::vector<std::string> results;
    auto caller = [&]() -> boost::asio::awaitable<void> {
      try {
        results.push_back(co_await credential.authorization());
      } catch (const ExecPluginError& e) {
        results.push_back(std::string("error: ") + e.what());
      }
    };
    boost::asio::co_spawn(io, caller, boost::asio::detached);
    boost::asio::co_spawn(io, caller, boost::asio::detached);
    boost::asio::co_spawn(
        io,
        [&]() -> boost::asio::awaitable<void> {
          dir.write("go", "");
          co_return;
        },
        boost::asio::detached);
    io.run();
    return results;
  };

  ExecCredential ok(config);
  CHECK(run_two_callers(ok) == std::vector<std::string>{"Bearer shared", "Bearer shared"});
  CHECK(ok.runs() == 1);

  dir.write("fail", "");
  ExecCredential failing(config);
  auto failures = run_two_callers(failing);
  REQUIRE(failures.size() == 2);
  CHECK(failures[0] == failures[1]);
  CHECK(failures[0].ends_with("failed with exit status 2: denied"));
  CHECK(failing.runs() == 1);
  // The failure is not cached: the next call runs the plugin again.
  std::filesystem::remove(dir / "fail");
  CHECK(run_two_callers(failing) == std::vector<std::string>{"Bearer shared", "Bearer shared"});
  CHECK(failing.runs() == 2);
}

TEST_CASE("a caller waiting for another's run can be cancelled; the run goes on") {
  // As above: the plugin blocks until $GO exists. The joiner is cancelled while it waits.
  TempDir dir;
  ExecCredential credential(gated_plugin(dir, "shared"));
  boost::asio::io_context io;
  boost::asio::cancellation_signal cancel_joiner;
  std::string leader, joiner;
  auto call = [&](std::string& result) -> boost::asio::awaitable<void> {
    try {
      result = co_await credential.authorization();
    } catch (const boost::system::system_error& e) {
      result = e.code() == boost::asio::error::operation_aborted ? "cancelled" : e.what();
    }
  };
  boost::asio::co_spawn(io, call(leader), boost::asio::detached);
  boost::asio::co_spawn(
      io, call(joiner),
      boost::asio::bind_cancellation_slot(cancel_joiner.slot(), boost::asio::detached));
  boost::asio::co_spawn(
      io,
      [&]() -> boost::asio::awaitable<void> {
        cancel_joiner.emit(boost::asio::cancellation_type::terminal);  // both are waiting now
        dir.write("go", "");
        co_return;
      },
      boost::asio::detached);
  io.run();
  CHECK(joiner == "cancelled");
  CHECK(leader == "Bearer shared");
  CHECK(credential.runs() == 1);
}

TEST_CASE("exec plugin from a kubeconfig, relative to the kubeconfig's folder") {
  Plugin p;
  p.dir.write("bin/plugin", kTokenPlugin, 0755);
  auto path = p.dir.write("config", fmt::format(R"(clusters:
- name: c
  cluster: {{server: https://api}}
users:
- name: u
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: ./bin/plugin
      args: [from-kubeconfig]
      env:
      - {{name: STATE, value: {}}}
      - {{name: PLUGIN_API_VERSION, value: client.authentication.k8s.io/v1}}
      interactiveMode: Never
contexts:
- name: x
  context: {{cluster: c, user: u}}
current-context: x
)",
                                                p.dir.path().string()));
  RestConfig rest = load_kubeconfig({{path}});
  auto* exec = dynamic_cast<ExecCredential*>(rest.auth.get());
  REQUIRE(exec != nullptr);
  CHECK(run(rest.auth->authorization()) == "Bearer tok-from-kubeconfig-1");
}

TEST_CASE("client certificates: both halves, valid PEM, and a key that matches") {
  const auto ca = generate_ca("client-ca");
  CertificateRequest request;
  request.common_name = "alice";
  request.server_auth = false;
  request.client_auth = true;
  const auto alice = issue_certificate(ca, request);
  const auto other = issue_certificate(ca, request);

  CHECK(failure_with_status({{"clientCertificateData", alice.cert_pem}}) ==
        "exec plugin PLUGIN: it returned clientCertificateData without clientKeyData; a client "
        "certificate needs both");
  CHECK(failure_with_status({{"token", "t"}, {"clientKeyData", alice.key_pem}}) ==
        "exec plugin PLUGIN: it returned clientKeyData without clientCertificateData; a client "
        "certificate needs both");
  CHECK(failure_with_status(
            {{"clientCertificateData", "not a certificate"}, {"clientKeyData", alice.key_pem}}) ==
        "exec plugin PLUGIN: clientCertificateData holds no PEM certificate (-----BEGIN "
        "CERTIFICATE-----)");
  CHECK(failure_with_status(
            {{"clientCertificateData", std::string(kCertPem)}, {"clientKeyData", alice.key_pem}})
            .starts_with(
                "exec plugin PLUGIN: clientCertificateData is not a valid PEM certificate ("));
  CHECK(failure_with_status(
            {{"clientCertificateData", alice.cert_pem}, {"clientKeyData", alice.cert_pem}}) ==
        "exec plugin PLUGIN: clientKeyData holds no PEM private key (-----BEGIN ... PRIVATE "
        "KEY-----)");
  CHECK(failure_with_status(
            {{"clientCertificateData", alice.cert_pem}, {"clientKeyData", std::string(kKeyPem)}})
            .starts_with("exec plugin PLUGIN: clientKeyData is not a valid PEM private key ("));
  CHECK(failure_with_status(
            {{"clientCertificateData", alice.cert_pem}, {"clientKeyData", other.key_pem}}) ==
        "exec plugin PLUGIN: clientKeyData is not the private key of the certificate in "
        "clientCertificateData");
}

TEST_CASE("client certificates: cached with the credential; unchanged ones keep their identity") {
  const auto ca = generate_ca("client-ca");
  CertificateRequest request;
  request.common_name = "alice";
  request.client_auth = true;
  const auto alice = issue_certificate(ca, request);
  TempDir dir;
  boost::json::object credential{
      {"apiVersion", kV1},
      {"kind", "ExecCredential"},
      {"status", {{"clientCertificateData", alice.cert_pem}, {"clientKeyData", alice.key_pem}}}};
  auto output = dir.write("credential.json", boost::json::serialize(credential));
  ExecConfig config;
  config.api_version = kV1;
  config.command =
      dir.write("plugin.sh", fmt::format("#!/bin/sh\ncat '{}'\n", output.string()), 0755).string();
  ExecCredential plugin(config);

  CHECK(run(plugin.authorization()).empty());  // no token: no Authorization header
  const auto first = run(plugin.client_certificate());
  REQUIRE(first != nullptr);
  CHECK(first->cert_pem == alice.cert_pem);
  CHECK(first->key_pem == alice.key_pem);
  CHECK(plugin.runs() == 1);

  plugin.invalidate();
  CHECK(run(plugin.client_certificate()) == first);  // same certificate: same pointer
  CHECK(plugin.runs() == 2);

  const auto bob = issue_certificate(ca, request);
  credential["status"] =
      boost::json::object{{"clientCertificateData", bob.cert_pem}, {"clientKeyData", bob.key_pem}};
  dir.write("credential.json", boost::json::serialize(credential));
  plugin.invalidate();
  const auto rotated = run(plugin.client_certificate());
  REQUIRE(rotated != nullptr);
  CHECK(rotated != first);
  CHECK(rotated->cert_pem == bob.cert_pem);
}
