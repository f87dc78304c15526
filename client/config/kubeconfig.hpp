// load_kubeconfig: a RestConfig from one or more kubeconfig files, merged like kubectl, for the
// current context or an explicitly chosen one.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "client/config/kubeconfig_file.hpp"
#include "client/config/rest_config.hpp"

namespace rg::client {

struct KubeconfigOptions {
  std::vector<std::filesystem::path> paths{};  ///< in precedence order (like $KUBECONFIG)
  std::string context{};                       ///< overrides current-context when not empty
  /// $KUBECONFIG semantics: files that do not exist are skipped (at least one must exist).
  /// When false (--kubeconfig), a missing file is an error.
  bool skip_missing = false;
};

/// Loads and merges the files and builds the RestConfig of the chosen context: server, TLS
/// (certificate authority, client certificate and key, from files or base64 data; or
/// insecure-skip-tls-verify), authentication (token, tokenFile, username/password, exec
/// plugin) and namespace (the context's, else "default"). RestConfig::source names the files and
/// the context. Throws ConfigError naming the file, line, entry, problem and what to do.
RestConfig load_kubeconfig(const KubeconfigOptions& options);

/// The same from an already merged Kubeconfig.
RestConfig rest_config_from(const Kubeconfig& config, const std::string& context_override = {});

}  // namespace rg::client
