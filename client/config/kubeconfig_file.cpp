// Parsing one kubeconfig file with yaml-cpp into the Kubeconfig model. Every yaml-cpp exception
// becomes a ConfigError naming the file, the line and the entry; unknown keys are ignored like
// kubectl does.
#include "client/config/kubeconfig_file.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <sstream>

#include "client/config/config_error.hpp"

namespace rg::client {
namespace {

/// Absent keys of a const node are "zombie" nodes on which most accessors throw; check first.
bool present(const YAML::Node& node) { return node.IsDefined() && !node.IsNull(); }

int line_of(const YAML::Node& node) {
  return !node.IsDefined() || node.Mark().is_null() ? 0 : node.Mark().line + 1;
}

class FileReader {
 public:
  explicit FileReader(const std::filesystem::path& path)
      : path_(path), file_(path.string()), folder_(path.parent_path()) {}

  Kubeconfig read(const YAML::Node& root) {
    Kubeconfig config;
    config.files.push_back(file_);
    if (root.IsNull()) return config;
    if (!root.IsMap()) {
      fail(root, "", "the document is not a mapping", "a kubeconfig starts with apiVersion: v1");
    }
    read_list(root, "clusters", "cluster", config.clusters, &FileReader::read_cluster);
    read_list(root, "users", "user", config.users, &FileReader::read_user);
    read_list(root, "contexts", "context", config.contexts, &FileReader::read_context);
    if (const YAML::Node current = root["current-context"]; present(current)) {
      config.current_context = scalar(current, "", "current-context");
      config.current_context_at = {file_, line_of(current)};
    }
    return config;
  }

 private:
  [[noreturn]] void fail(const YAML::Node& node, const std::string& entry, std::string problem,
                         const std::string& hint = {}) const {
    throw ConfigError(file_, line_of(node), entry, std::move(problem), hint);
  }

  std::string scalar(const YAML::Node& node, const std::string& entry, std::string_view key) const {
    if (!present(node)) return {};
    if (!node.IsScalar()) fail(node, entry, fmt::format("{} must be a string", key));
    return node.Scalar();
  }

  bool boolean(const YAML::Node& node, const std::string& entry, std::string_view key) const {
    if (!present(node)) return false;
    bool value = false;
    if (!node.IsScalar() || !YAML::convert<bool>::decode(node, value)) {
      fail(node, entry, fmt::format("{} must be true or false", key));
    }
    return value;
  }

  std::string path(const YAML::Node& node, const std::string& entry, std::string_view key) const {
    std::string value = scalar(node, entry, key);
    if (value.empty() || std::filesystem::path(value).is_absolute()) return value;
    return (folder_ / value).lexically_normal().string();
  }

  /// Reads a list of {name, <item_key>: {...}} into `out`, rejecting duplicate names.
  template <class Entry>
  void read_list(const YAML::Node& root, const char* list_key, const char* item_key,
                 std::map<std::string, Entry, std::less<>>& out,
                 void (FileReader::*read_item)(const YAML::Node&, Entry&) const) const {
    const YAML::Node list = root[list_key];
    if (!present(list)) return;
    if (!list.IsSequence()) fail(list, "", fmt::format("{} must be a list", list_key));
    for (const YAML::Node& item : list) {
      if (!item.IsMap())
        fail(item, "", fmt::format("each entry of {} must be a mapping", list_key));
      std::string name = scalar(item["name"], "", "name");
      if (name.empty()) {
        fail(item, "", fmt::format("an entry of {} has no name", list_key),
             fmt::format("give every {} a name", item_key));
      }
      std::string entry = fmt::format("{} \"{}\"", item_key, name);
      if (out.contains(name)) {
        fail(item, entry, fmt::format("duplicate name \"{}\" in {}", name, list_key),
             "names must be unique within a file");
      }
      Entry value;
      value.name = name;
      value.where = {file_, line_of(item)};
      const YAML::Node body = item[item_key];
      if (present(body)) {
        if (!body.IsMap()) fail(body, entry, fmt::format("{} must be a mapping", item_key));
        for (const auto& kv : body) value.key_lines[kv.first.Scalar()] = line_of(kv.first);
        (this->*read_item)(body, value);
      }
      out.emplace(std::move(name), std::move(value));
    }
  }

  void read_cluster(const YAML::Node& n, ClusterEntry& c) const {
    std::string entry = fmt::format("cluster \"{}\"", c.name);
    c.server = scalar(n["server"], entry, "server");
    c.certificate_authority = path(n["certificate-authority"], entry, "certificate-authority");
    c.certificate_authority_data =
        scalar(n["certificate-authority-data"], entry, "certificate-authority-data");
    c.insecure_skip_tls_verify =
        boolean(n["insecure-skip-tls-verify"], entry, "insecure-skip-tls-verify");
    c.tls_server_name = scalar(n["tls-server-name"], entry, "tls-server-name");
    c.proxy_url = scalar(n["proxy-url"], entry, "proxy-url");
  }

  void read_user(const YAML::Node& n, UserEntry& u) const {
    std::string entry = fmt::format("user \"{}\"", u.name);
    u.client_certificate = path(n["client-certificate"], entry, "client-certificate");
    u.client_certificate_data =
        scalar(n["client-certificate-data"], entry, "client-certificate-data");
    u.client_key = path(n["client-key"], entry, "client-key");
    u.client_key_data = scalar(n["client-key-data"], entry, "client-key-data");
    u.token = scalar(n["token"], entry, "token");
    u.token_file = path(n["tokenFile"], entry, "tokenFile");
    u.username = scalar(n["username"], entry, "username");
    u.password = scalar(n["password"], entry, "password");
    for (const char* key : {"as", "as-uid", "as-groups", "as-user-extra"}) {
      if (present(n[key]) && u.impersonation_key.empty()) u.impersonation_key = key;
    }
    if (const YAML::Node provider = n["auth-provider"]; present(provider)) {
      u.auth_provider = provider.IsMap() ? scalar(provider["name"], entry, "auth-provider name")
                                         : std::string("unnamed");
    }
    if (const YAML::Node exec = n["exec"]; present(exec)) u.exec = read_exec(exec, entry);
  }

  ExecConfig read_exec(const YAML::Node& n, const std::string& entry) const {
    if (!n.IsMap()) fail(n, entry, "exec must be a mapping");
    ExecConfig exec;
    exec.api_version = scalar(n["apiVersion"], entry, "exec apiVersion");
    if (exec.api_version.empty()) {
      fail(n, entry, "apiVersion must be specified to use the exec authentication plugin",
           "use client.authentication.k8s.io/v1");
    }
    if (exec.api_version != "client.authentication.k8s.io/v1" &&
        exec.api_version != "client.authentication.k8s.io/v1beta1") {
      fail(n["apiVersion"], entry,
           fmt::format("exec apiVersion \"{}\" is not supported", exec.api_version),
           "use client.authentication.k8s.io/v1 or client.authentication.k8s.io/v1beta1");
    }
    exec.command = scalar(n["command"], entry, "exec command");
    if (exec.command.empty()) {
      fail(n, entry, "command must be specified to use the exec authentication plugin");
    }
    // Only commands with a path separator are relative to the kubeconfig; bare names use $PATH.
    if (exec.command.find('/') != std::string::npos) {
      exec.command = path(n["command"], entry, "exec command");
    }
    if (const YAML::Node args = n["args"]; present(args)) {
      if (!args.IsSequence()) fail(args, entry, "exec args must be a list of strings");
      for (const YAML::Node& a : args) exec.args.push_back(scalar(a, entry, "an exec arg"));
    }
    if (const YAML::Node env = n["env"]; present(env)) {
      if (!env.IsSequence()) fail(env, entry, "exec env must be a list of {name, value}");
      for (const YAML::Node& e : env) {
        if (!e.IsMap()) fail(e, entry, "exec env entries must be {name, value} mappings");
        std::string name = scalar(e["name"], entry, "exec env name");
        if (name.empty()) {
          fail(e, entry, "env variable name must be specified to use the exec plugin");
        }
        exec.env.emplace_back(std::move(name), scalar(e["value"], entry, "exec env value"));
      }
    }
    exec.install_hint = scalar(n["installHint"], entry, "installHint");
    exec.provide_cluster_info = boolean(n["provideClusterInfo"], entry, "provideClusterInfo");
    std::string mode = scalar(n["interactiveMode"], entry, "interactiveMode");
    if (mode.empty()) {
      if (exec.api_version == "client.authentication.k8s.io/v1") {
        fail(n, entry,
             "interactiveMode must be specified to use the exec plugin with apiVersion "
             "client.authentication.k8s.io/v1",
             "set interactiveMode: Never or IfAvailable");
      }
      mode = "IfAvailable";
    }
    if (mode != "Never" && mode != "IfAvailable" && mode != "Always") {
      fail(n["interactiveMode"], entry,
           fmt::format("interactiveMode \"{}\" is not one of Never, IfAvailable, Always", mode));
    }
    exec.interactive_mode = mode;
    return exec;
  }

  void read_context(const YAML::Node& n, ContextEntry& c) const {
    std::string entry = fmt::format("context \"{}\"", c.name);
    c.cluster = scalar(n["cluster"], entry, "cluster");
    c.user = scalar(n["user"], entry, "user");
    c.namespace_ = scalar(n["namespace"], entry, "namespace");
  }

  std::filesystem::path path_;
  std::string file_;
  std::filesystem::path folder_;
};

}  // namespace

SourceLocation KubeconfigEntry::at(std::string_view key) const {
  auto it = key_lines.find(key);
  return it == key_lines.end() ? where : SourceLocation{where.file, it->second};
}

void Kubeconfig::merge(Kubeconfig other) {
  files.insert(files.end(), other.files.begin(), other.files.end());
  clusters.merge(other.clusters);  // std::map::merge keeps existing keys: first file wins
  users.merge(other.users);
  contexts.merge(other.contexts);
  if (current_context.empty()) {
    current_context = std::move(other.current_context);
    current_context_at = std::move(other.current_context_at);
  }
}

Kubeconfig parse_kubeconfig_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw ConfigError(path.string(), 0, "", "cannot read the kubeconfig file",
                      "check that it exists and is readable");
  }
  std::stringstream text;
  text << in.rdbuf();
  return parse_kubeconfig(text.str(), path);
}

Kubeconfig parse_kubeconfig(const std::string& text, const std::filesystem::path& path) {
  try {
    YAML::Node root = YAML::Load(text);
    return FileReader(path).read(root);
  } catch (const YAML::Exception& e) {
    // Syntax errors, and anything yaml-cpp rejects that the reader did not check first.
    throw ConfigError(path.string(), e.mark.is_null() ? 0 : e.mark.line + 1, "",
                      "not a valid kubeconfig: " + e.msg,
                      "fix the YAML, e.g. check the indentation and quoting near that line");
  }
}

}  // namespace rg::client
