// Tests of the metav1.Status JSON encoding: the shared round-trip fixture and the server's shapes.
#include "client/rest/status.hpp"
#include "test/roundtrip_fixtures.hpp"

#include <doctest/doctest.h>
#include <boost/json.hpp>

namespace json = boost::json;
using rg::client::parse_status;
using rg::client::Status;
using rg::client::StatusDetails;

TEST_CASE("Status decodes a NotFound body as the API server writes it") {
  const auto status =
      parse_status(R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
                   R"("message":"deployments.apps \"web\" not found","reason":"NotFound",)"
                   R"("details":{"name":"web","group":"apps","kind":"deployments"},"code":404})");
  REQUIRE(status);
  CHECK(status->status == "Failure");
  CHECK(status->reason == rg::client::reason::kNotFound);
  CHECK(status->code == 404);
  CHECK(status->message == "deployments.apps \"web\" not found");
  REQUIRE(status->details);
  CHECK(status->details->name == "web");
  CHECK(status->details->group == "apps");
  CHECK(status->details->kind == "deployments");
}

TEST_CASE("Status encodes in the API server's field order and omits empty fields") {
  Status status;
  status.status = "Failure";
  status.message = "Apply failed with 1 conflict";
  status.reason = "Conflict";
  status.code = 409;
  status.details = StatusDetails{};
  status.details->causes.push_back({"FieldManagerConflict", "conflict", ".spec.replicas"});
  CHECK(json::serialize(rg::client::to_json(status)) ==
        R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
        R"("message":"Apply failed with 1 conflict","reason":"Conflict","details":{"causes":)"
        R"([{"reason":"FieldManagerConflict","message":"conflict","field":".spec.replicas"}]},)"
        R"("code":409})");
  CHECK(json::value_to<Status>(json::value_from(status)) == status);
}

TEST_CASE("Status rejects bodies that are not a Status") {
  CHECK_FALSE(parse_status("Too many requests, please try again later.\n"));
  CHECK_FALSE(parse_status(R"({"kind":"Pod","apiVersion":"v1"})"));
  CHECK_FALSE(parse_status(R"({"kind":"Status","code":"404"})"));
  CHECK_FALSE(parse_status(R"({"kind":"Status","details":{"causes":{}}})"));
  CHECK_FALSE(parse_status("[]"));
  CHECK_THROWS_AS(json::value_to<Status>(json::value("x")), std::invalid_argument);
}

TEST_CASE("Status keeps every field of the shared round-trip fixture" *
          rg::testing::skip_without_roundtrip_fixtures()) {
  const auto status = parse_status(rg::testing::read_roundtrip_fixture("core.v1.Status.json"));
  REQUIRE(status);
  CHECK(status->status == "statusValue");
  CHECK(status->message == "messageValue");
  CHECK(status->reason == "reasonValue");
  CHECK(status->code == 6);
  CHECK(status->resource_version == "resourceVersionValue");
  CHECK(status->continue_ == "continueValue");
  REQUIRE(status->details);
  CHECK(status->details->name == "nameValue");
  CHECK(status->details->group == "groupValue");
  CHECK(status->details->kind == "kindValue");
  CHECK(status->details->uid == "uidValue");
  CHECK(status->details->retry_after_seconds == 5);
  REQUIRE(status->details->causes.size() == 1);
  CHECK(status->details->causes[0] ==
        rg::client::StatusCause{"reasonValue", "messageValue", "fieldValue"});
}
