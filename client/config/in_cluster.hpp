// load_in_cluster: the RestConfig of a pod's service account (rest.InClusterConfig): the API
// server from KUBERNETES_SERVICE_HOST/PORT, the token (re-read as it rotates), CA and namespace
// from the service-account folder, whose location tests can change.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "client/config/rest_config.hpp"

namespace rg::client {

struct InClusterOptions {
  std::filesystem::path service_account_dir = "/var/run/secrets/kubernetes.io/serviceaccount";
  std::optional<std::string> service_host{};  ///< default: $KUBERNETES_SERVICE_HOST
  std::optional<std::string> service_port{};  ///< default: $KUBERNETES_SERVICE_PORT
};

/// nullopt when not running in a cluster (host or port unset). Throws ConfigError when in a
/// cluster but the token cannot be read. A missing ca.crt falls back to the system roots (with a
/// warning), a missing namespace file to $POD_NAMESPACE, then "default".
std::optional<RestConfig> load_in_cluster(const InClusterOptions& options = {});

}  // namespace rg::client
