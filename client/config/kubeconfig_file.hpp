// The kubeconfig file model: clusters, users and contexts of one or more kubeconfig files, each
// entry remembering the file and line it came from (for error messages), with relative paths
// already resolved against the folder of the file that holds them, and kubectl's merge rule.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "client/config/exec_credential.hpp"

namespace rg::client {

/// Where an entry (or one of its keys) was written.
struct SourceLocation {
  std::string file;
  int line = 0;  ///< 1-based
};

struct KubeconfigEntry {
  std::string name;
  SourceLocation where;
  std::map<std::string, int, std::less<>> key_lines;  ///< line of each key that was set

  /// The location of `key` within the entry, or of the entry itself.
  SourceLocation at(std::string_view key) const;
};

struct ClusterEntry : KubeconfigEntry {
  std::string server;
  std::string certificate_authority;       ///< path
  std::string certificate_authority_data;  ///< base64, as written
  bool insecure_skip_tls_verify = false;
  std::string tls_server_name;
  std::string proxy_url;  ///< not supported by the transport: warned about, not used
};

struct UserEntry : KubeconfigEntry {
  std::string client_certificate;  ///< path
  std::string client_certificate_data;
  std::string client_key;  ///< path
  std::string client_key_data;
  std::string token;
  std::string token_file;  ///< path
  std::string username;
  std::string password;
  std::optional<ExecConfig> exec;
  std::string auth_provider;      ///< name of a legacy auth-provider plugin, unsupported
  std::string impersonation_key;  ///< the first of as/as-uid/as-groups/as-user-extra, unsupported
};

struct ContextEntry : KubeconfigEntry {
  std::string cluster;
  std::string user;
  std::string namespace_;
};

struct Kubeconfig {
  std::vector<std::string> files;  ///< the files merged, in precedence order
  std::map<std::string, ClusterEntry, std::less<>> clusters;
  std::map<std::string, UserEntry, std::less<>> users;
  std::map<std::string, ContextEntry, std::less<>> contexts;
  std::string current_context;
  SourceLocation current_context_at;

  /// kubectl's merge: for each name the first file that defines it wins (whole entries, not
  /// fields), and current-context comes from the first file that sets it.
  void merge(Kubeconfig other);
};

/// Parses one kubeconfig file. An empty file is an empty config. Throws ConfigError (file, line,
/// entry, problem) for unreadable files, YAML syntax errors, wrong types and duplicate names.
Kubeconfig parse_kubeconfig_file(const std::filesystem::path& path);

/// Parses the text of a kubeconfig file; `path` is where it came from (for relative paths and
/// messages). Throws ConfigError like parse_kubeconfig_file.
Kubeconfig parse_kubeconfig(const std::string& text, const std::filesystem::path& path);

}  // namespace rg::client
