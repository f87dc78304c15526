// RestLeaseLock: the LeaseLock leader election uses in a cluster, a coordination.k8s.io/v1 Lease
// read, created and replaced through the RestClient (client-go's resourcelock.LeaseLock).
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "client/leaderelection/leader_election.hpp"
#include "client/rest/rest_client.hpp"

namespace rg::client {

class RestLeaseLock final : public LeaseLock {
 public:
  /// The Lease `namespace_`/`name`; `client` must outlive the lock.
  RestLeaseLock(RestClient& client, std::string namespace_, std::string name)
      : client_(client), namespace_(std::move(namespace_)), name_(std::move(name)) {}
  boost::asio::awaitable<std::optional<LeaseRecord>> get() override;
  boost::asio::awaitable<void> create(const LeaseRecord& record) override;
  boost::asio::awaitable<void> update(const LeaseRecord& record) override;
  std::string describe() const override { return namespace_ + "/" + name_; }

 private:
  RestClient& client_;
  std::string namespace_;
  std::string name_;
};

}  // namespace rg::client
