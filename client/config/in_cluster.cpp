// load_in_cluster, following client-go's rest.InClusterConfig and clientcmd's in-cluster
// namespace lookup.
#include "client/config/in_cluster.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string_view>

#include "client/config/config_error.hpp"
#include "client/config/token_auth.hpp"
#include "client/text.hpp"

namespace rg::client {
namespace {

std::string env_or(const std::optional<std::string>& given, const char* name) {
  if (given) return *given;
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

std::optional<std::string> read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

std::optional<RestConfig> load_in_cluster(const InClusterOptions& options) {
  std::string host = env_or(options.service_host, "KUBERNETES_SERVICE_HOST");
  std::string port = env_or(options.service_port, "KUBERNETES_SERVICE_PORT");
  if (host.empty() || port.empty()) return std::nullopt;

  const auto& dir = options.service_account_dir;
  auto token = std::make_shared<TokenFile>(dir / "token");
  try {
    token->token();
  } catch (const ConfigError& e) {
    throw ConfigError((dir / "token").string(), 0, "in-cluster service account", e.problem(),
                      "KUBERNETES_SERVICE_HOST is set but the service-account token is missing; "
                      "check automountServiceAccountToken, or run with --kubeconfig");
  }

  RestConfig rest;
  // An IPv6 service address needs brackets in the URL.
  rest.host = host.find(':') != std::string::npos ? fmt::format("https://[{}]:{}", host, port)
                                                  : fmt::format("https://{}:{}", host, port);
  rest.auth = std::move(token);
  if (auto ca = read_file(dir / "ca.crt")) {
    rest.tls.ca_pem = std::move(*ca);
  } else {
    spdlog::error("expected to load the root CA from {}; using the system's roots",
                  (dir / "ca.crt").string());
  }
  const auto ns_file = read_file(dir / "namespace");
  if (const auto ns = ns_file ? trim(*ns_file) : std::string_view(); !ns.empty()) {
    rest.namespace_ = std::string(ns);
  } else if (const char* pod_ns = std::getenv("POD_NAMESPACE"); pod_ns != nullptr && *pod_ns) {
    rest.namespace_ = pod_ns;
  }
  rest.source = fmt::format("in-cluster service account ({})", dir.string());
  return rest;
}

}  // namespace rg::client
