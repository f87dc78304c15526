// resolve_config: finds the configuration the way controller-runtime does: --kubeconfig, then
// $KUBECONFIG, then the in-cluster service account, then ~/.kube/config.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "client/config/in_cluster.hpp"
#include "client/config/rest_config.hpp"

namespace rg::client {

struct ResolveOptions {
  std::string kubeconfig{};                     ///< --kubeconfig (must exist when given)
  std::string context{};                        ///< --context (kubeconfig only)
  std::optional<std::string> kubeconfig_env{};  ///< default: $KUBECONFIG (':'-separated)
  std::optional<std::filesystem::path> home{};  ///< default: $HOME
  InClusterOptions in_cluster{};
};

/// The first source that exists wins; RestConfig::source says which. Throws ConfigError when a
/// chosen source is broken, or when none exists (naming everything that was tried).
RestConfig resolve_config(const ResolveOptions& options = {});

}  // namespace rg::client
