// The operator's writes through the API server: DeploymentWriter (annotation merge patches and
// scale subresource patches, guarded by resourceVersion), EventSink (core/v1 Events) and LeaseLock
// (coordination.k8s.io/v1 Leases), each a thin adapter over the RestClient.
#pragma once

#include <string>

#include "client/rest/rest_client.hpp"
#include "operator/event_recorder.hpp"
#include "operator/leader_election.hpp"
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

class RestEventSink final : public EventSink {
 public:
  explicit RestEventSink(client::RestClient& client) : client_(client) {}
  boost::asio::awaitable<void> create(const client::Event& event) override;
  boost::asio::awaitable<void> update_count(const client::Event& event) override;

 private:
  client::RestClient& client_;
};

class RestLeaseLock final : public LeaseLock {
 public:
  RestLeaseLock(client::RestClient& client, std::string namespace_, std::string name)
      : client_(client), namespace_(std::move(namespace_)), name_(std::move(name)) {}
  boost::asio::awaitable<std::optional<LeaseRecord>> get() override;
  boost::asio::awaitable<void> create(const LeaseRecord& record) override;
  boost::asio::awaitable<void> update(const LeaseRecord& record) override;
  std::string describe() const override { return namespace_ + "/" + name_; }

 private:
  client::RestClient& client_;
  std::string namespace_;
  std::string name_;
};

}  // namespace rg::op
