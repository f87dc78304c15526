// A realistic kubelet-managed pod (sim/realistic_pod, the benchmark's corpus) decodes into the
// Pod projection with every kept field equal to the JSON, running and pending alike.
#include <doctest/doctest.h>

#include <boost/json.hpp>

#include "client/model/codec.hpp"
#include "client/model/pod.hpp"
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
  CHECK(pod.status.container_statuses[0].ready);
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
