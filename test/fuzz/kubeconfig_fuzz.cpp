// Fuzzes kubeconfig loading: the input is a kubeconfig file's YAML. Properties: bad files fail
// only with ConfigError (file, line, problem); a file that parses builds the RestConfig of its
// current context or fails with ConfigError, and merging it with itself changes nothing.
// Entries naming files (certificates, keys, token files) are not loaded: the harness must not
// read whatever path the input names.
#include <cstddef>
#include <cstdint>
#include <string>

#include "client/config/config_error.hpp"
#include "client/config/kubeconfig.hpp"
#include "client/config/kubeconfig_file.hpp"
#include "test/fuzz/fuzz_support.hpp"

namespace {

using namespace rg::client;

bool names_files(const Kubeconfig& config) {
  for (const auto& [name, cluster] : config.clusters) {
    if (!cluster.certificate_authority.empty()) return true;
  }
  for (const auto& [name, user] : config.users) {
    if (!user.client_certificate.empty() || !user.client_key.empty() || !user.token_file.empty()) {
      return true;
    }
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Kubeconfig config;
  try {
    config = parse_kubeconfig(std::string(rg::fuzz::as_text(data, size)), "/fuzz/kubeconfig");
  } catch (const ConfigError&) {
    return 0;
  }
  Kubeconfig merged = config;
  merged.merge(config);
  RG_FUZZ_CHECK(merged.current_context == config.current_context, "merge changed current-context");
  RG_FUZZ_CHECK(merged.clusters.size() == config.clusters.size() &&
                    merged.users.size() == config.users.size() &&
                    merged.contexts.size() == config.contexts.size(),
                "merging a config with itself changed its entries");
  if (names_files(config)) return 0;
  try {
    RestConfig rest = rest_config_from(config);
    RG_FUZZ_CHECK(!rest.host.empty(), "a RestConfig without a server");
  } catch (const ConfigError&) {
  }
  return 0;
}
