// Encoding the kinds the operator writes: the Scale patch body, Event creation, Lease
// create/update; and decode(to_json(x)) == x for them.
#include <doctest/doctest.h>

#include <boost/json.hpp>

#include "client/model/codec.hpp"
#include "client/model/event.hpp"
#include "client/model/lease.hpp"
#include "client/model/scale.hpp"

namespace rg::client {
namespace {

TEST_CASE("scale_patch sets spec.replicas, with resourceVersion for optimistic concurrency") {
  CHECK(boost::json::serialize(scale_patch(5)) == R"({"spec":{"replicas":5}})");
  CHECK(boost::json::serialize(scale_patch(0, "812")) ==
        R"({"metadata":{"resourceVersion":"812"},"spec":{"replicas":0}})");
}

TEST_CASE("a Scale encodes replicas even when zero") {
  Scale scale;
  scale.metadata.name = "web";
  scale.metadata.namespace_ = "prod";
  CHECK(
      boost::json::serialize(to_json(scale)) ==
      R"({"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"web","namespace":"prod","generation":0},)"
      R"("spec":{"replicas":0},"status":{"replicas":0}})");
}

TEST_CASE("an Event encodes for creation and decodes back unchanged") {
  Event event;
  event.metadata.generate_name = "web.";
  event.metadata.namespace_ = "prod";
  event.involved_object = {"Deployment", "prod", "web", "uid-1", "apps/v1", "77", ""};
  event.reason = "ScaledUp";
  event.message = "2 pods stranded on NotReady node node-3: scaled from 3 to 5";
  event.source.component = "replica-guard";
  event.first_timestamp = "2026-11-29T14:00:00Z";
  event.last_timestamp = "2026-11-29T14:00:00Z";
  event.count = 1;
  event.type = "Normal";
  event.event_time = "2026-11-29T14:00:00.000001Z";
  event.reporting_component = "replica-guard";
  event.reporting_instance = "replica-guard-0";
  const auto json = to_json(event);
  CHECK(json.at("apiVersion") == "v1");
  CHECK(json.at("kind") == "Event");
  CHECK(json.at("involvedObject").at("kind") == "Deployment");
  CHECK_FALSE(json.at("involvedObject").as_object().contains("fieldPath"));
  CHECK_FALSE(json.contains("action"));
  const auto back = decode<Event>(boost::json::serialize(json));
  CHECK(back.involved_object.uid == "uid-1");
  CHECK(back.message == event.message);
  CHECK(back.event_time == event.event_time);
  CHECK(back.count == 1);
  CHECK(boost::json::serialize(to_json(back)) == boost::json::serialize(json));
}

TEST_CASE("a Lease encodes only the spec fields that are set") {
  Lease lease;
  lease.metadata.name = "replica-guard";
  lease.metadata.namespace_ = "kube-system";
  lease.metadata.resource_version = "9";
  lease.spec.holder_identity = "pod-a";
  lease.spec.lease_duration_seconds = 15;
  lease.spec.renew_time = "2026-11-29T14:00:00.123456Z";
  CHECK(
      boost::json::serialize(to_json(lease)) ==
      R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"replica-guard",)"
      R"("namespace":"kube-system","resourceVersion":"9","generation":0},"spec":{"holderIdentity":"pod-a",)"
      R"("leaseDurationSeconds":15,"renewTime":"2026-11-29T14:00:00.123456Z"}})");
  const auto back = decode<Lease>(boost::json::serialize(to_json(lease)));
  CHECK(back.spec.holder_identity == "pod-a");
  CHECK_FALSE(back.spec.acquire_time.has_value());
  CHECK_FALSE(back.spec.lease_transitions.has_value());
}

}  // namespace
}  // namespace rg::client
