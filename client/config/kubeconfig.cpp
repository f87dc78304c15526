// load_kubeconfig: merging kubeconfig files and turning the chosen context into a RestConfig,
// with kubectl's validation rules and one clear ConfigError per problem.
#include "client/config/kubeconfig.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <fstream>
#include <set>
#include <sstream>

#include "client/config/base64.hpp"
#include "client/config/config_error.hpp"
#include "client/config/token_auth.hpp"

namespace rg::client {
namespace {

template <class Map>
std::string names_of(const Map& map) {
  if (map.empty()) return "none";
  std::string out;
  for (const auto& [name, entry] : map) out += (out.empty() ? "" : ", ") + name;
  return out;
}

std::string join_files(const std::vector<std::string>& files) {
  std::string out;
  for (const auto& f : files) out += (out.empty() ? "" : ":") + f;
  return out;
}

[[noreturn]] void fail(const SourceLocation& at, const std::string& entry, std::string problem,
                       const std::string& hint = {}) {
  throw ConfigError(at.file, at.line, entry, std::move(problem), hint);
}

/// PEM text from `<key>-data` (base64) or the file `<key>`; the data wins, like client-go.
std::string read_pem(const KubeconfigEntry& e, const std::string& entry, const std::string& key,
                     const std::string& file, const std::string& data, std::string_view marker) {
  std::string pem;
  std::string data_key = key + "-data";
  if (!data.empty()) {
    auto decoded = base64_decode(data);
    if (!decoded) {
      fail(e.at(data_key), entry, data_key + " is not valid base64",
           fmt::format("it must hold the base64 of the PEM text, e.g. the output of "
                       "`base64 -w0 {}.pem`",
                       key));
    }
    pem = std::move(*decoded);
  } else if (!file.empty()) {
    std::ifstream in(file, std::ios::binary);
    if (!in) {
      fail(e.at(key), entry, fmt::format("cannot read the {} file {}", key, file),
           "check the path (relative paths are relative to the kubeconfig's folder) and the "
           "file's permissions");
    }
    std::stringstream text;
    text << in.rdbuf();
    pem = text.str();
  } else {
    return {};
  }
  if (pem.find("-----BEGIN") == std::string::npos || pem.find(marker) == std::string::npos) {
    std::string what = data.empty() ? key + " file " + file : data_key;
    fail(e.at(data.empty() ? key : data_key), entry,
         fmt::format("{} does not hold PEM text with {}", what, marker));
  }
  return pem;
}

std::string normalize_server(const ClusterEntry& c, const std::string& entry) {
  std::string server = c.server;
  if (server.find("://") == std::string::npos) server = "https://" + server;
  if (!server.starts_with("https://") && !server.starts_with("http://")) {
    fail(c.at("server"), entry, fmt::format("server \"{}\" is not an http(s) URL", c.server),
         "use e.g. https://127.0.0.1:6443");
  }
  while (server.ends_with('/')) server.pop_back();
  return server;
}

TlsConfig tls_from(const ClusterEntry& c, const UserEntry* u) {
  std::string entry = fmt::format("cluster \"{}\"", c.name);
  TlsConfig tls;
  tls.insecure_skip_verify = c.insecure_skip_tls_verify;
  tls.server_name = c.tls_server_name;
  tls.ca_pem = read_pem(c, entry, "certificate-authority", c.certificate_authority,
                        c.certificate_authority_data, "CERTIFICATE");
  if (tls.insecure_skip_verify && !tls.ca_pem.empty()) {
    fail(c.at("insecure-skip-tls-verify"), entry,
         "specifying a root certificates file with the insecure flag is not allowed",
         "remove either insecure-skip-tls-verify or the certificate authority");
  }
  if (u == nullptr) return tls;
  std::string user = fmt::format("user \"{}\"", u->name);
  tls.client_cert_pem = read_pem(*u, user, "client-certificate", u->client_certificate,
                                 u->client_certificate_data, "CERTIFICATE");
  tls.client_key_pem =
      read_pem(*u, user, "client-key", u->client_key, u->client_key_data, "PRIVATE KEY");
  if (tls.client_cert_pem.empty() != tls.client_key_pem.empty()) {
    fail(u->where, user,
         tls.client_cert_pem.empty() ? "client-key is set without client-certificate"
                                     : "client-certificate is set without client-key",
         "client certificate authentication needs both (or their -data forms)");
  }
  return tls;
}

std::shared_ptr<AuthProvider> auth_from(const UserEntry& u, const ClusterEntry& c,
                                        const TlsConfig& tls) {
  std::string entry = fmt::format("user \"{}\"", u.name);
  if (!u.auth_provider.empty()) {
    fail(u.at("auth-provider"), entry,
         fmt::format("auth-provider \"{}\" is not supported (kubectl removed these plugins)",
                     u.auth_provider),
         "use an exec credential plugin instead, e.g. kubelogin or the cloud's CLI");
  }
  if (!u.impersonation_key.empty()) {
    // Ignoring it would silently act as the base user instead of the impersonated one.
    fail(u.at(u.impersonation_key), entry,
         fmt::format("impersonation ({}) is not supported", u.impersonation_key),
         "use a user whose own credentials have the access needed");
  }
  bool has_token = !u.token.empty() || !u.token_file.empty();
  bool has_basic = !u.username.empty() || !u.password.empty();
  if (has_token && has_basic) {
    fail(u.where, entry,
         "more than one authentication method found: token and basicAuth; only one is allowed");
  }
  if (!u.token_file.empty()) {
    auto provider = std::make_shared<TokenFile>(u.token_file, u.token);
    if (u.token.empty()) {
      try {
        provider->token();
      } catch (const ConfigError& e) {
        fail(u.at("tokenFile"), entry, fmt::format("tokenFile {}: {}", u.token_file, e.problem()),
             "check that the file exists, is readable and holds a bearer token");
      }
    }
    return provider;
  }
  if (!u.token.empty()) return std::make_shared<StaticToken>(u.token);
  if (has_basic) return std::make_shared<BasicAuth>(u.username, u.password);
  // Like client-go, an exec plugin is not used when a client certificate authenticates already.
  if (u.exec && tls.client_cert_pem.empty()) {
    ExecClusterInfo cluster{c.server, c.tls_server_name, c.insecure_skip_tls_verify, tls.ca_pem};
    return std::make_shared<ExecCredential>(*u.exec, std::move(cluster));
  }
  return nullptr;
}

}  // namespace

RestConfig rest_config_from(const Kubeconfig& config, const std::string& context_override) {
  std::string files = join_files(config.files);
  std::string context_name = context_override.empty() ? config.current_context : context_override;
  if (context_name.empty()) {
    throw ConfigError(files, 0, "", "current-context is not set",
                      "run `kubectl config use-context NAME` or pass --context");
  }
  auto context = config.contexts.find(context_name);
  if (context == config.contexts.end()) {
    std::string hint = fmt::format("defined contexts: {}", names_of(config.contexts));
    if (!context_override.empty()) {
      throw ConfigError(files, 0, "--context",
                        fmt::format("context \"{}\" is not defined", context_name), hint);
    }
    fail(config.current_context_at, "current-context",
         fmt::format("context \"{}\" is not defined", context_name), hint);
  }
  const ContextEntry& ctx = context->second;
  std::string entry = fmt::format("context \"{}\"", ctx.name);
  if (ctx.cluster.empty()) {
    fail(ctx.where, entry, "the context names no cluster", "set contexts[].context.cluster");
  }
  auto cluster = config.clusters.find(ctx.cluster);
  if (cluster == config.clusters.end()) {
    fail(ctx.at("cluster"), entry, fmt::format("cluster \"{}\" is not defined", ctx.cluster),
         fmt::format("defined clusters: {}", names_of(config.clusters)));
  }
  const UserEntry* user = nullptr;
  if (!ctx.user.empty()) {
    auto found = config.users.find(ctx.user);
    if (found == config.users.end()) {
      fail(ctx.at("user"), entry, fmt::format("user \"{}\" is not defined", ctx.user),
           fmt::format("defined users: {}", names_of(config.users)));
    }
    user = &found->second;
  }
  const ClusterEntry& c = cluster->second;
  std::string cluster_entry = fmt::format("cluster \"{}\"", c.name);
  if (c.server.empty()) {
    fail(c.where, cluster_entry, "the cluster has no server",
         "set clusters[].cluster.server to the API server's URL, e.g. https://127.0.0.1:6443");
  }

  if (!c.proxy_url.empty()) {
    spdlog::warn("{}: {}: proxy-url {} is not supported; connecting to {} directly",
                 c.at("proxy-url").file, cluster_entry, c.proxy_url, c.server);
  }
  RestConfig rest;
  rest.host = normalize_server(c, cluster_entry);
  rest.tls = tls_from(c, user);
  if (user != nullptr) rest.auth = auth_from(*user, c, rest.tls);
  if (!ctx.namespace_.empty()) rest.namespace_ = ctx.namespace_;
  rest.source = fmt::format("kubeconfig {} (context \"{}\")", files, ctx.name);
  return rest;
}

RestConfig load_kubeconfig(const KubeconfigOptions& options) {
  Kubeconfig merged;
  std::set<std::filesystem::path> seen;
  std::vector<std::string> missing;
  for (const auto& path : options.paths) {
    if (path.empty() || !seen.insert(path.lexically_normal()).second) continue;
    std::error_code ec;
    if (options.skip_missing && !std::filesystem::exists(path, ec)) {
      missing.push_back(path.string());
      continue;
    }
    merged.merge(parse_kubeconfig_file(path));
  }
  if (merged.files.empty()) {
    throw ConfigError(join_files(missing), 0, "", "no kubeconfig file exists",
                      "check $KUBECONFIG or pass --kubeconfig");
  }
  return rest_config_from(merged, options.context);
}

}  // namespace rg::client
