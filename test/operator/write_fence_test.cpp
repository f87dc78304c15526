// WriteFence: which requests it stops, and that it stops them only when not leading.
#include "operator/write_fence.hpp"

#include <doctest/doctest.h>

#include <atomic>

using rg::op::FencedWrite;
using rg::op::WriteFence;

namespace {

const std::string kLease = "/apis/coordination.k8s.io/v1/namespaces/default/leases/replica-guard";

}  // namespace

TEST_CASE(
    "write fence: reads, the election's Lease and access reviews pass; other writes are fenced") {
  prometheus::Registry registry;
  WriteFence fence([] { return false; }, kLease, registry);
  CHECK_FALSE(fence.fenced("GET", "/apis/apps/v1/deployments?watch=true"));
  CHECK_FALSE(fence.fenced("PUT", kLease));
  CHECK_FALSE(fence.fenced("POST", "/apis/coordination.k8s.io/v1/namespaces/default/leases"));
  CHECK_FALSE(fence.fenced("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"));
  CHECK(
      fence.fenced("PATCH", "/apis/apps/v1/namespaces/shop/deployments/web/scale?fieldManager=x"));
  CHECK(fence.fenced("POST", "/api/v1/namespaces/shop/events"));
  CHECK(fence.fenced("PATCH", "/api/v1/nodes/node-1"));
  CHECK(fence.fenced("PUT", kLease + "-other"));
  CHECK(fence.fenced("POST", "/apis/coordination.k8s.io/v1/namespaces/other/leases"));
}

TEST_CASE("write fence: a fenced write throws and is counted only when not leading") {
  prometheus::Registry registry;
  std::atomic<bool> leading = true;
  WriteFence fence([&] { return leading.load(); }, kLease, registry);
  const rg::client::HttpRequest scale{
      "PATCH", "/apis/apps/v1/namespaces/shop/deployments/web/scale", {}, "{}"};
  const rg::client::HttpRequest renew{"PUT", kLease, {}, "{}"};
  CHECK_NOTHROW(fence.check(scale));
  leading = false;
  CHECK_THROWS_AS(fence.check(scale), FencedWrite);
  CHECK_NOTHROW(fence.check(renew));  // the election keeps campaigning
  CHECK(fence.stopped() == 1);
}
