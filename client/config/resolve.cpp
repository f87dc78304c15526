// resolve_config: --kubeconfig, $KUBECONFIG, in-cluster, ~/.kube/config.
#include "client/config/resolve.hpp"

#include <fmt/format.h>

#include <cstdlib>

#include "client/config/config_error.hpp"
#include "client/config/kubeconfig.hpp"

namespace rg::client {
namespace {

std::vector<std::filesystem::path> split_list(std::string_view list) {
  std::vector<std::filesystem::path> paths;
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t end = list.find(':', start);
    if (end == std::string_view::npos) end = list.size();
    if (end > start) paths.emplace_back(list.substr(start, end - start));
    start = end + 1;
  }
  return paths;
}

std::optional<std::string> getenv_string(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::nullopt : std::optional<std::string>(value);
}

}  // namespace

RestConfig resolve_config(const ResolveOptions& options) {
  if (!options.kubeconfig.empty()) {
    RestConfig rest = load_kubeconfig({{options.kubeconfig}, options.context, false});
    rest.source = "--kubeconfig " + rest.source;
    return rest;
  }
  std::string env = options.kubeconfig_env.value_or(getenv_string("KUBECONFIG").value_or(""));
  if (auto paths = split_list(env); !paths.empty()) {
    RestConfig rest = load_kubeconfig({std::move(paths), options.context, true});
    rest.source = "$KUBECONFIG " + rest.source;
    return rest;
  }
  if (auto rest = load_in_cluster(options.in_cluster)) return std::move(*rest);
  std::optional<std::filesystem::path> home = options.home;
  if (!home) {
    if (auto h = getenv_string("HOME")) home = *h;
  }
  std::string tried =
      "--kubeconfig (not given), $KUBECONFIG (not set), in-cluster "
      "(KUBERNETES_SERVICE_HOST/PORT not set)";
  if (home && !home->empty()) {
    std::filesystem::path path = *home / ".kube" / "config";
    std::error_code ec;
    if (std::filesystem::exists(path, ec)) {
      return load_kubeconfig({{path}, options.context, false});
    }
    tried += ", " + path.string() + " (does not exist)";
  } else {
    tried += ", ~/.kube/config ($HOME not set)";
  }
  throw ConfigError("", 0, "", "no configuration found; tried " + tried,
                    "pass --kubeconfig, set $KUBECONFIG, or run in a pod with a service account");
}

}  // namespace rg::client
