// The operator's writes through the API server: DeploymentWriter (annotation merge patches and
// scale subresource patches, guarded by resourceVersion), a thin adapter over the RestClient.
// (Events and Leases have theirs in the library: client/record/rest_event_sink.hpp,
// client/leaderelection/lease_lock.hpp.)
#pragma once

#include <string>

#include "client/rest/rest_client.hpp"
#include "operator/reconciler.hpp"

namespace rg::op {

class RestDeploymentWriter final : public DeploymentWriter {
 public:
  explicit RestDeploymentWriter(client::RestClient& client) : client_(client) {}
  boost::asio::awaitable<std::string> patch_annotations(
      const std::string& namespace_, const std::string& name, const std::string& resource_version,
      const std::vector<std::pair<std::string, std::optional<std::string>>>& annotations) override;
  boost::asio::awaitable<std::string> scale(const std::string& namespace_, const std::string& name,
                                            const std::string& resource_version,
                                            std::int32_t replicas) override;

 private:
  client::RestClient& client_;
};

}  // namespace rg::op
