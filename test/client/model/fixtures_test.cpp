// The Kubernetes round-trip fixtures (every field populated): the typed projections keep every
// kept field with its value, and unstructured objects round-trip to equivalent JSON.
#include <doctest/doctest.h>

#include <boost/json.hpp>

#include <filesystem>
#include <functional>
#include <map>

#include "client/model/codec.hpp"
#include "client/model/deployment.hpp"
#include "client/model/event.hpp"
#include "client/model/lease.hpp"
#include "client/model/node.hpp"
#include "client/model/pod.hpp"
#include "client/model/replica_set.hpp"
#include "client/model/scale.hpp"
#include "client/model/time.hpp"
#include "client/model/unstructured.hpp"
#include "test/client/model/schema_projection.hpp"
#include "test/roundtrip_fixtures.hpp"

namespace rg::client {
namespace {

namespace fs = std::filesystem;

// Decodes `text` into T, encodes it back, and returns that next to the generic projection of
// the original JSON through T's schema.
template <class T>
std::pair<std::string, std::string> typed_round_trip(const std::string& text) {
  const auto& schema = schema_of(detail::Tag<T>{});
  const T object = decode<T>(text);
  const auto original = boost::json::parse(text).as_object();
  return {boost::json::serialize(to_json(object)),
          boost::json::serialize(test::project(original, schema))};
}

template <class T>
std::vector<std::string> missing_schema_keys(const std::string& text) {
  std::vector<std::string> missing;
  test::missing_keys(boost::json::parse(text).as_object(), schema_of(detail::Tag<T>{}), "",
                     missing);
  return missing;
}

struct TypedCheck {
  std::function<std::pair<std::string, std::string>(const std::string&)> round_trip;
  std::function<std::vector<std::string>(const std::string&)> missing;
};

template <class T>
TypedCheck typed_check() {
  return {&typed_round_trip<T>, &missing_schema_keys<T>};
}

const std::map<std::string, TypedCheck>& typed_fixtures() {
  static const std::map<std::string, TypedCheck> checks{
      {"core.v1.Pod.json", typed_check<Pod>()},
      {"core.v1.Node.json", typed_check<Node>()},
      {"apps.v1.Deployment.json", typed_check<Deployment>()},
      {"apps.v1.ReplicaSet.json", typed_check<ReplicaSet>()},
      {"autoscaling.v1.Scale.json", typed_check<Scale>()},
      {"coordination.k8s.io.v1.Lease.json", typed_check<Lease>()},
      {"core.v1.Event.json", typed_check<Event>()},
  };
  return checks;
}

TEST_CASE("every fixture with a typed projection decodes without losing a kept field" *
          rg::testing::skip_without_roundtrip_fixtures()) {
  const auto dir = rg::testing::roundtrip_fixtures();
  REQUIRE(dir);
  std::size_t checked = 0;
  for (const auto& [file, check] : typed_fixtures()) {
    CAPTURE(file);
    const fs::path path = *dir / file;
    REQUIRE_MESSAGE(fs::exists(path), "fixture missing: " << path);
    const std::string text = rg::testing::read_text_file(path);
    const auto [encoded, expected] = check.round_trip(text);
    CHECK(encoded == expected);
    // Every kept key exists in the fixture, so none is misspelt in a schema.
    CHECK(check.missing(text) == std::vector<std::string>{});
    ++checked;
  }
  CHECK(checked == typed_fixtures().size());
}

TEST_CASE("every fixture round-trips through Unstructured to equivalent JSON" *
          rg::testing::skip_without_roundtrip_fixtures()) {
  const auto dir = rg::testing::roundtrip_fixtures();
  REQUIRE(dir);
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(*dir)) {
    if (entry.path().extension() != ".json") continue;
    CAPTURE(entry.path().filename().string());
    const std::string text = rg::testing::read_text_file(entry.path());
    const auto object = Unstructured::parse(text);
    CHECK(boost::json::parse(object.serialize()) == boost::json::parse(text));
    CHECK(Unstructured::parse(object.serialize()) == object);
    ++files;
  }
  CHECK(files >= typed_fixtures().size());
}

TEST_CASE("the fixture Pod's kept fields hold the fixture's values" *
          rg::testing::skip_without_roundtrip_fixtures()) {
  const auto dir = rg::testing::roundtrip_fixtures();
  REQUIRE(dir);
  const auto pod = decode<Pod>(rg::testing::read_text_file(*dir / "core.v1.Pod.json"));
  CHECK(pod.metadata.name == "nameValue");
  CHECK(pod.metadata.namespace_ == "namespaceValue");
  CHECK(pod.metadata.resource_version == "resourceVersionValue");
  CHECK(pod.metadata.generation == 7);
  CHECK(pod.metadata.deletion_timestamp == parse_rfc3339("2009-01-01T01:01:01Z"));
  CHECK(pod.metadata.deletion_grace_period_seconds == 10);
  CHECK(pod.metadata.labels.at("labelsKey") == "labelsValue");
  REQUIRE(pod.metadata.owner_references.size() == 1);
  CHECK(pod.metadata.owner_references[0].controller);
  CHECK(pod.spec.node_name == "nodeNameValue");
  CHECK(pod.status.phase == "phaseValue");
  REQUIRE(pod.status.conditions.size() == 1);
  CHECK(pod.status.conditions[0].last_transition_time == parse_rfc3339("2004-01-01T01:01:01Z"));
  REQUIRE(pod.status.container_statuses.size() == 1);
  const auto& status = pod.status.container_statuses[0];
  CHECK(status.ready);
  CHECK(status.restart_count == 5);
  CHECK(status.started == true);
  REQUIRE(status.state.terminated.has_value());
  CHECK(status.state.terminated->exit_code == 1);
  CHECK(status.state.running->started_at == parse_rfc3339("2001-01-01T01:01:01Z"));
}

TEST_CASE("the fixture Deployment, Node and Lease hold the fixture's values" *
          rg::testing::skip_without_roundtrip_fixtures()) {
  const auto dir = rg::testing::roundtrip_fixtures();
  REQUIRE(dir);
  const auto deployment =
      decode<Deployment>(rg::testing::read_text_file(*dir / "apps.v1.Deployment.json"));
  CHECK(deployment.spec.desired_replicas() == 1);
  CHECK(deployment.spec.paused);
  CHECK(deployment.spec.selector.match_labels.at("matchLabelsKey") == "matchLabelsValue");
  REQUIRE(deployment.spec.selector.match_expressions.size() == 1);
  CHECK(deployment.spec.selector.match_expressions[0].operator_ == "operatorValue");
  CHECK(deployment.status.unavailable_replicas == 5);
  CHECK(deployment.status.observed_generation == 1);

  const auto node = decode<Node>(rg::testing::read_text_file(*dir / "core.v1.Node.json"));
  CHECK(node.spec.unschedulable);
  REQUIRE(node.spec.taints.size() == 1);
  CHECK(node.spec.taints[0].time_added == "2004-01-01T01:01:01Z");
  REQUIRE(node.status.conditions.size() == 1);
  CHECK(node.status.conditions[0].last_heartbeat_time == "2003-01-01T01:01:01Z");

  const auto lease =
      decode<Lease>(rg::testing::read_text_file(*dir / "coordination.k8s.io.v1.Lease.json"));
  CHECK(lease.spec.holder_identity == "holderIdentityValue");
  CHECK(lease.spec.renew_time == "2004-01-01T01:01:01.000004Z");
  CHECK(lease.spec.lease_transitions == 5);
}

}  // namespace
}  // namespace rg::client
