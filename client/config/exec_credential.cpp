// ExecCredential: running a kubeconfig exec plugin and caching its token and client certificate
// until they expire.
#include "client/config/exec_credential.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <boost/json.hpp>

#include <cerrno>
#include <charconv>
#include <system_error>

#include "async/condition.hpp"
#include "client/config/base64.hpp"
#include "client/config/key_pair.hpp"
#include "client/config/subprocess.hpp"
#include "client/model/time.hpp"
#include "client/text.hpp"

namespace rg::client {
namespace {

namespace json = boost::json;
using std::chrono::system_clock;

std::string stderr_suffix(const std::string& err) {
  std::string text(trim(err));
  return text.empty() ? std::string(" and wrote nothing to stderr") : ": " + text;
}

}  // namespace

ExecCredential::ExecCredential(ExecConfig config, ExecClusterInfo cluster, Clock clock)
    : config_(std::move(config)), cluster_(std::move(cluster)), clock_(std::move(clock)) {}

int ExecCredential::runs() const {
  std::lock_guard lock(mutex_);
  return runs_;
}

void ExecCredential::invalidate() {
  std::lock_guard lock(mutex_);
  cached_.reset();
}

std::string ExecCredential::exec_info() const {
  json::object spec{{"interactive", false}};
  if (config_.provide_cluster_info) {
    json::object cluster{{"server", cluster_.server}};
    if (!cluster_.tls_server_name.empty()) cluster["tls-server-name"] = cluster_.tls_server_name;
    if (cluster_.insecure_skip_tls_verify) cluster["insecure-skip-tls-verify"] = true;
    if (!cluster_.certificate_authority_pem.empty()) {
      cluster["certificate-authority-data"] = base64_encode(cluster_.certificate_authority_pem);
    }
    spec["cluster"] = std::move(cluster);
  }
  json::object info{
      {"apiVersion", config_.api_version}, {"kind", "ExecCredential"}, {"spec", std::move(spec)}};
  return json::serialize(info);
}

ExecCredential::Credentials ExecCredential::parse_output(const std::string& output) const {
  auto fail = [&](std::string_view problem) {
    return ExecPluginError(fmt::format("exec plugin {}: {}", config_.command, problem));
  };
  json::value doc;
  try {
    doc = json::parse(output);
  } catch (const std::exception& e) {
    throw fail(
        fmt::format("its output is not JSON ({}); it must print an ExecCredential", e.what()));
  }
  const json::object* object = doc.if_object();
  if (object == nullptr) throw fail("its output is not a JSON object");
  auto string_field = [](const json::object& o, std::string_view key) -> std::string {
    const json::value* v = o.if_contains(key);
    return v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string();
  };
  if (std::string kind = string_field(*object, "kind"); kind != "ExecCredential") {
    throw fail(fmt::format("it returned kind \"{}\", expected ExecCredential", kind));
  }
  if (std::string version = string_field(*object, "apiVersion"); version != config_.api_version) {
    throw fail(fmt::format("it is configured to use API version {}, plugin returned version {}",
                           config_.api_version, version.empty() ? "(none)" : version));
  }
  const json::value* status = object->if_contains("status");
  if (status == nullptr || !status->is_object()) throw fail("it didn't return a status field");
  const json::object& s = status->get_object();
  Credentials credentials{string_field(s, "token"), nullptr, std::nullopt};
  std::string cert = string_field(s, "clientCertificateData");
  std::string key = string_field(s, "clientKeyData");
  if (credentials.token.empty() && cert.empty() && key.empty()) {
    throw fail(
        "it didn't return a token or a client certificate (status.token, or "
        "status.clientCertificateData with status.clientKeyData)");
  }
  if (cert.empty() != key.empty()) {
    throw fail(cert.empty() ? "it returned clientKeyData without clientCertificateData; a client "
                              "certificate needs both"
                            : "it returned clientCertificateData without clientKeyData; a client "
                              "certificate needs both");
  }
  if (!cert.empty()) {
    if (auto problem = key_pair_problem(cert, key, "clientCertificateData", "clientKeyData")) {
      throw fail(*problem);
    }
    credentials.certificate =
        std::make_shared<const ClientCertificate>(ClientCertificate{cert, key});
  }
  if (std::string expiry = string_field(s, "expirationTimestamp"); !expiry.empty()) {
    credentials.expiry = parse_rfc3339(expiry);
    if (!credentials.expiry) {
      throw fail(fmt::format("its expirationTimestamp \"{}\" is not an RFC 3339 time", expiry));
    }
  }
  return credentials;
}

/// One plugin run that later callers join: they wait until it ends, each resumed on its own
/// executor (and free to be cancelled meanwhile).
class ExecCredential::Flight {
 public:
  /// Waits for complete(), then returns the credentials or rethrows the run's error.
  boost::asio::awaitable<std::shared_ptr<const Credentials>> wait() {
    auto ended = [this] { return done_; };
    co_await ended_.until(ended);
    // Written before done_, under the mutex, and never again.
    if (error_) std::rethrow_exception(error_);
    co_return credentials_;
  }

  void complete(std::shared_ptr<const Credentials> credentials, std::exception_ptr error) {
    std::lock_guard lock(mutex_);
    credentials_ = std::move(credentials);
    error_ = std::move(error);
    done_ = true;
    ended_.notify_all_locked();
  }

 private:
  std::mutex mutex_;
  async::Condition ended_{mutex_};
  bool done_ = false;
  std::shared_ptr<const Credentials> credentials_;
  std::exception_ptr error_;
};

boost::asio::awaitable<std::shared_ptr<const ExecCredential::Credentials>>
ExecCredential::credentials() {
  std::shared_ptr<const Credentials> cached;
  std::shared_ptr<Flight> flight;
  bool leader = false;
  {
    std::lock_guard lock(mutex_);
    if (cached_ && (!cached_->expiry || clock_() < *cached_->expiry)) {
      cached = cached_;
    } else if (flight_) {
      flight = flight_;
    } else {
      flight = flight_ = std::make_shared<Flight>();
      leader = true;
    }
  }
  if (cached) co_return cached;
  if (!leader) {
    auto joined = co_await flight->wait();
    co_return joined;
  }

  std::shared_ptr<const Credentials> fresh;
  std::exception_ptr error;
  try {
    fresh = co_await run_plugin();
  } catch (...) {
    error = std::current_exception();
  }
  {
    std::lock_guard lock(mutex_);
    flight_.reset();
  }
  flight->complete(fresh, error);
  if (error) std::rethrow_exception(error);
  co_return fresh;
}

boost::asio::awaitable<std::string> ExecCredential::authorization() {
  auto current = co_await credentials();
  co_return current->token.empty() ? std::string() : "Bearer " + current->token;
}

boost::asio::awaitable<std::shared_ptr<const ClientCertificate>>
ExecCredential::client_certificate() {
  auto current = co_await credentials();
  co_return current->certificate;
}

boost::asio::awaitable<std::shared_ptr<const ExecCredential::Credentials>>
ExecCredential::run_plugin() {
  if (config_.interactive_mode == "Always") {
    throw ExecPluginError(fmt::format(
        "exec plugin {} needs an interactive terminal (interactiveMode: Always), which a "
        "controller does not have; use a plugin mode that works without one",
        config_.command));
  }
  ProcessSpec spec{config_.command, config_.args, config_.env, config_.timeout};
  spec.env.emplace_back("KUBERNETES_EXEC_INFO", exec_info());
  ProcessResult result;
  std::string start_error;
  try {
    result = co_await run_process(spec);
  } catch (const std::system_error& e) {
    start_error = e.code() == std::errc::no_such_file_or_directory
                      ? fmt::format("executable {} not found", config_.command)
                      : e.what();
    if (!config_.install_hint.empty())
      start_error += "\n\n" + std::string(trim(config_.install_hint));
  } catch (const std::length_error& e) {
    start_error = e.what();
  }
  {
    std::lock_guard lock(mutex_);
    ++runs_;
  }
  if (!start_error.empty()) {
    throw ExecPluginError(fmt::format("exec plugin {}: {}", config_.command, start_error));
  }
  if (result.timed_out) {
    throw ExecPluginError(fmt::format("exec plugin {} did not finish within {} and was killed{}",
                                      config_.command, config_.timeout, stderr_suffix(result.err)));
  }
  if (result.signal != 0) {
    throw ExecPluginError(fmt::format("exec plugin {} was killed by signal {}{}", config_.command,
                                      result.signal, stderr_suffix(result.err)));
  }
  if (result.exit_code != 0) {
    throw ExecPluginError(fmt::format("exec plugin {} failed with exit status {}{}",
                                      config_.command, result.exit_code,
                                      stderr_suffix(result.err)));
  }
  if (std::string err(trim(result.err)); !err.empty()) {
    spdlog::debug("exec plugin {} wrote to stderr: {}", config_.command, err);
  }
  Credentials fresh = parse_output(result.out);
  std::lock_guard lock(mutex_);
  if (fresh.certificate && last_certificate_ &&
      fresh.certificate->cert_pem == last_certificate_->cert_pem &&
      fresh.certificate->key_pem == last_certificate_->key_pem) {
    fresh.certificate = last_certificate_;  // unchanged: no rotation
  }
  last_certificate_ = fresh.certificate;
  cached_ = std::make_shared<const Credentials>(std::move(fresh));
  co_return cached_;
}

}  // namespace rg::client
