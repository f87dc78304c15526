// The operator's writes, end to end over HTTP: a PATCH of deployments/NAME/scale answers the
// Scale of what it stored, an annotation merge patch conditional on resourceVersion, and the
// same PATCHes again as no-ops (same resourceVersion, managedFields untouched, no new version in
// the store), plus the conflict and dry-run answers of the scale subresource.
#include <doctest/doctest.h>

#include <optional>

#include "sim/server.hpp"
#include "test/sim/http_client.hpp"

namespace json = boost::json;
using rg::sim::test::call;
using rg::sim::test::Reply;
using rg::sim::test::rv_of;
using rg::sim::test::str;

namespace {

const std::string kWeb = "/apis/apps/v1/namespaces/default/deployments/web";

Reply merge_patch(unsigned short port, const std::string& path, const std::string& body,
                  const std::string& content_type = "application/merge-patch+json") {
  return call(port, "PATCH", path, body, {{"Content-Type", content_type}});
}

/// The managedFields entry of `manager` (Update) for `subresource` ("" for the main resource).
std::optional<json::object> update_entry(const json::value& object, const std::string& manager,
                                         const std::string& subresource) {
  for (const auto& item : object.at("metadata").at("managedFields").as_array()) {
    const auto& entry = item.as_object();
    const auto* sub = entry.if_contains("subresource");
    if (str(entry.at("manager")) == manager && str(entry.at("operation")) == "Update" &&
        (sub == nullptr ? std::string() : str(*sub)) == subresource)
      return entry;
  }
  return std::nullopt;
}

}  // namespace

TEST_CASE("scale and annotation PATCHes: the answered Scale, ownership, and no-ops as no-ops") {
  rg::sim::Server server;
  const auto port = server.port();
  auto created =
      call(port, "POST", "/apis/apps/v1/namespaces/default/deployments?fieldManager=creator",
           R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},
                          "spec":{"replicas":2,"selector":{"matchLabels":{"app":"w"}},
                          "template":{"metadata":{"labels":{"app":"w"}},
                          "spec":{"containers":[{"name":"c","image":"nginx"}]}}}})");
  REQUIRE(created.status == 201);
  const auto deployment = created.json();

  // The scale PATCH answers the Scale of the stored object, as a GET of /scale then does.
  auto scaled = merge_patch(
      port, kWeb + "/scale?fieldManager=replica-guard",
      R"({"metadata":{"resourceVersion":")" + rv_of(deployment) + R"("},"spec":{"replicas":5}})");
  REQUIRE(scaled.status == 200);
  const auto scale = scaled.json();
  CHECK(scale == call(port, "GET", kWeb + "/scale").json());
  CHECK(scale.at("kind") == "Scale");
  CHECK(scale.at("apiVersion") == "autoscaling/v1");
  CHECK(scale.at("spec").at("replicas") == 5);
  CHECK(scale.at("status") == json::parse(R"({"replicas":0,"selector":"app=w"})"));
  auto stored = call(port, "GET", kWeb).json();
  CHECK(rv_of(scale) == rv_of(stored));
  CHECK(rv_of(scale) != rv_of(deployment));
  for (auto field : {"name", "namespace", "uid", "creationTimestamp"})
    CHECK(scale.at("metadata").at(field) == stored.at("metadata").at(field));
  CHECK(stored.at("spec").at("replicas") == 5);
  CHECK(stored.at("metadata").at("generation") == 2);
  const auto by_scale = update_entry(stored, "replica-guard", "scale");
  REQUIRE(by_scale.has_value());
  CHECK(by_scale->at("fieldsV1") == json::parse(R"({"f:spec":{"f:replicas":{}}})"));
  CHECK(!update_entry(stored, "creator", "")
             ->at("fieldsV1")
             .at("f:spec")
             .as_object()
             .contains("f:replicas"));

  // The same scale again changes nothing: same version, same managedFields, no new version.
  const auto version = server.store().resource_version();
  auto again = merge_patch(port, kWeb + "/scale?fieldManager=replica-guard",
                           R"({"spec":{"replicas":5}})", "application/strategic-merge-patch+json");
  REQUIRE(again.status == 200);
  CHECK(again.json() == scale);
  CHECK(call(port, "GET", kWeb).json() == stored);
  CHECK(server.store().resource_version() == version);

  // The annotation merge patch, conditional on the version: the main resource's entry owns it.
  const std::string record = R"({"metadata":{"resourceVersion":")" + rv_of(stored) +
                             R"(","annotations":{"replica-guard.io/replaced":"3"}}})";
  auto recorded = merge_patch(port, kWeb + "?fieldManager=replica-guard", record);
  REQUIRE(recorded.status == 200);
  const auto annotated = recorded.json();
  CHECK(rv_of(annotated) != rv_of(stored));
  CHECK(annotated.at("metadata").at("generation") == 2);  // no spec change
  const auto by_patch = update_entry(annotated, "replica-guard", "");
  REQUIRE(by_patch.has_value());
  CHECK(
      by_patch->at("fieldsV1") ==
      json::parse(R"({"f:metadata":{"f:annotations":{".":{},"f:replica-guard.io/replaced":{}}}})"));
  CHECK(update_entry(annotated, "replica-guard", "scale")->at("fieldsV1") ==
        by_scale->at("fieldsV1"));

  // Sent again with the now stale version: 409. Without it: a no-op.
  CHECK(merge_patch(port, kWeb + "?fieldManager=replica-guard", record).status == 409);
  auto unchanged = merge_patch(port, kWeb + "?fieldManager=replica-guard",
                               R"({"metadata":{"annotations":{"replica-guard.io/replaced":"3"}}})");
  REQUIRE(unchanged.status == 200);
  CHECK(unchanged.json() == annotated);
  CHECK(server.store().resource_version() == version + 1);

  // A stale scale PATCH conflicts; a dry run answers the Scale it would store, and stores nothing.
  auto stale = merge_patch(
      port, kWeb + "/scale?fieldManager=replica-guard",
      R"({"metadata":{"resourceVersion":")" + rv_of(stored) + R"("},"spec":{"replicas":6}})");
  CHECK(stale.status == 409);
  auto dry = merge_patch(port, kWeb + "/scale?fieldManager=replica-guard&dryRun=All",
                         R"({"spec":{"replicas":7}})");
  REQUIRE(dry.status == 200);
  CHECK(dry.json().at("spec").at("replicas") == 7);
  CHECK(rv_of(dry.json()) == rv_of(annotated));
  CHECK(call(port, "GET", kWeb).json() == annotated);
}
