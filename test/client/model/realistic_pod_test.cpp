// A realistic kubelet-managed pod (sim/realistic_pod, the benchmark's corpus) decodes into the
// Pod projection with every kept field equal to the JSON, running and pending alike.
#include <doctest/doctest.h>

#include <boost/json.hpp>

#include "client/model/codec.hpp"
#include "client/model/pod.hpp"
#include "client/model/time.hpp"
#include "sim/realistic_pod.hpp"
#include "test/client/model/schema_projection.hpp"

namespace rg::client {
namespace {

TEST_CASE("a realistic running pod keeps every kept field") {
  rg::sim::RealisticPodSpec spec;
  spec.ordinal = 7;
  const auto json = rg::sim::realistic_pod(spec);
  const std::string text = boost::json::serialize(json);
  const auto pod = decode<Pod>(text);
  CHECK(boost::json::serialize(to_json(pod)) ==
        boost::json::serialize(test::project(json, schema_of(detail::Tag<Pod>{}))));
  CHECK(pod.metadata.name == rg::sim::realistic_pod_name(spec));
  CHECK(pod.metadata.labels.at("app") == "web");
  REQUIRE(pod.metadata.owner_references.size() == 1);
  CHECK(pod.metadata.owner_references[0].kind == "ReplicaSet");
  CHECK(pod.spec.node_name == "node-1");
  CHECK(pod.status.conditions.size() == 4);
  REQUIRE(pod.status.container_statuses.size() == 1);
  const ContainerStatus& container = pod.status.container_statuses[0];
  CHECK(container.ready);
  CHECK(container.started == true);
  REQUIRE(container.state.running.has_value());
  CHECK(container.state.running->started_at == parse_rfc3339(spec.creation_timestamp));
  CHECK_FALSE(container.state.waiting);
  CHECK_FALSE(container.last_state.running);
}

// An informer caches one Pod per pod of the cluster: these sizes are what a realistic pod's four
// conditions and its container status cost (one heap block each list), so a member that grows
// them shows here first.
TEST_CASE("a cached pod's conditions and container statuses stay small") {
  CHECK(sizeof(PodCondition) == 48);     // type 16, status/reason/message 8 each, time 8
  CHECK(sizeof(ContainerStatus) <= 88);  // in a 96-byte malloc chunk, running state inline
  CHECK(sizeof(Pod) <= 328);             // with make_shared's count, a 352-byte malloc chunk
  rg::sim::RealisticPodSpec spec;
  spec.ready = false;
  const auto pod = decode<Pod>(boost::json::serialize(rg::sim::realistic_pod(spec)));
  REQUIRE(pod.status.container_statuses.size() == 1);
  const ContainerStatus& container = pod.status.container_statuses[0];
  CHECK_FALSE(container.state.running);
  REQUIRE(container.state.waiting);
  CHECK(container.state.waiting->reason == "ContainerCreating");
  for (const PodCondition& condition : pod.status.conditions) {
    CHECK(condition.status.is_inline());
    CHECK(condition.reason.empty());
  }
}

TEST_CASE("a realistic pending pod keeps every kept field") {
  rg::sim::RealisticPodSpec spec;
  spec.node_name.clear();
  spec.ready = false;
  const auto json = rg::sim::realistic_pod(spec);
  const auto pod = decode<Pod>(boost::json::serialize(json));
  CHECK(boost::json::serialize(to_json(pod)) ==
        boost::json::serialize(test::project(json, schema_of(detail::Tag<Pod>{}))));
  CHECK(pod.spec.node_name.empty());
}

}  // namespace
}  // namespace rg::client
