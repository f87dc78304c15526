// Tests of ApiError: every reason the API server sends decodes into the right predicate, with
// message and details; non-Status bodies still give typed errors.
#include "client/rest/api_error.hpp"

#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <vector>

#include "client/transport/transport_error.hpp"

using namespace rg::client;

namespace {

std::string status_body(int code, std::string_view reason, std::string_view message) {
  return R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":")" +
         std::string(message) + R"(","reason":")" + std::string(reason) +
         R"(","details":{"name":"web","group":"apps","kind":"deployments"},"code":)" +
         std::to_string(code) + "}";
}

using Predicate = bool (*)(const std::exception&);

struct Case {
  int code;
  std::string_view reason;
  Predicate predicate;
};

const std::vector<Case> kCases = {
    {404, reason::kNotFound, is_not_found},
    {409, reason::kAlreadyExists, is_already_exists},
    {409, reason::kConflict, is_conflict},
    {410, reason::kGone, is_gone},
    {410, reason::kExpired, is_resource_expired},
    {403, reason::kForbidden, is_forbidden},
    {401, reason::kUnauthorized, is_unauthorized},
    {429, reason::kTooManyRequests, is_too_many_requests},
    {422, reason::kInvalid, is_invalid},
    {400, reason::kBadRequest, is_bad_request},
    {405, reason::kMethodNotAllowed, is_method_not_allowed},
    {406, reason::kNotAcceptable, is_not_acceptable},
    {413, reason::kRequestEntityTooLarge, is_request_entity_too_large},
    {415, reason::kUnsupportedMediaType, is_unsupported_media_type},
    {500, reason::kInternalError, is_internal_error},
    {503, reason::kServiceUnavailable, is_service_unavailable},
    {504, reason::kTimeout, is_timeout},
    {500, reason::kServerTimeout, is_server_timeout},
};

}  // namespace

TEST_CASE("each Status reason maps to its predicate and to no other") {
  for (const auto& tested : kCases) {
    CAPTURE(tested.reason);
    const auto error =
        make_api_error(tested.code, status_body(tested.code, tested.reason, "msg"), "");
    CHECK(error.code() == tested.code);
    CHECK(error.reason() == tested.reason);
    CHECK(error.message() == "msg");
    REQUIRE(error.status().details);
    CHECK(error.status().details->name == "web");
    CHECK(error.status().details->group == "apps");
    CHECK(error.status().details->kind == "deployments");
    CHECK(tested.predicate(error));
    for (const auto& other : kCases) {
      if (other.predicate == tested.predicate) continue;
      // Expired is also Gone (both mean: relist).
      if (tested.reason == reason::kExpired && other.predicate == is_gone) continue;
      CAPTURE(other.reason);
      CHECK_FALSE(other.predicate(error));
    }
  }
}

TEST_CASE("an Expired watch or continue token counts as gone") {
  const auto error = make_api_error(
      410, status_body(410, reason::kExpired, "too old resource version: 123 (456)"), "");
  CHECK(is_gone(error));
  CHECK(is_resource_expired(error));
  CHECK(std::string(error.what()) == "too old resource version: 123 (456) (Expired)");
}

TEST_CASE("Invalid keeps its causes") {
  const auto error = make_api_error(
      422,
      R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Deployment.apps \"web\" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0","reason":"Invalid","details":{"name":"web","group":"apps","kind":"Deployment","causes":[{"reason":"FieldValueInvalid","message":"Invalid value: -1: must be greater than or equal to 0","field":"spec.replicas"}]},"code":422})",
      "");
  CHECK(is_invalid(error));
  REQUIRE(error.status().details);
  REQUIRE(error.status().details->causes.size() == 1);
  CHECK(error.status().details->causes[0].field == "spec.replicas");
  CHECK(error.status().details->causes[0].reason == "FieldValueInvalid");
}

TEST_CASE("the plain-text 429 of API Priority and Fairness is a typed TooManyRequests") {
  const auto error = make_api_error(429, "Too many requests, please try again later.\n", "1");
  CHECK(is_too_many_requests(error));
  CHECK(error.code() == 429);
  CHECK(error.message() == "Too many requests, please try again later.");
  CHECK(error.retry_after() == std::chrono::seconds(1));
}

TEST_CASE("non-Status bodies map their HTTP code to the reason apimachinery would") {
  CHECK(is_not_found(make_api_error(404, "404 page not found", "")));
  CHECK(is_service_unavailable(make_api_error(503, "", "")));
  CHECK(is_timeout(make_api_error(504, "<html>gateway timeout</html>", "")));
  const auto empty = make_api_error(502, "", "");
  CHECK(empty.reason().empty());
  CHECK(empty.message() ==
        "the server responded with status 502 but did not return more information");
  CHECK_FALSE(is_internal_error(empty));
}

TEST_CASE("a Status without a reason falls back to its HTTP code, an unknown one too") {
  CHECK(is_not_found(make_api_error(404, R"({"kind":"Status","code":404})", "")));
  CHECK(is_conflict(make_api_error(409, R"({"kind":"Status","reason":"Other"})", "")));
  // A well-known reason wins over the code.
  CHECK_FALSE(is_not_found(make_api_error(404, status_body(404, reason::kForbidden, "x"), "")));
}

TEST_CASE("retryAfterSeconds comes from the Status or the Retry-After header") {
  const auto from_status = make_api_error(
      504, R"({"kind":"Status","reason":"Timeout","code":504,"details":{"retryAfterSeconds":3}})",
      "");
  CHECK(from_status.retry_after() == std::chrono::seconds(3));
  CHECK_FALSE(make_api_error(500, "", "").retry_after());
  CHECK_FALSE(make_api_error(503, "", "Wed, 21 Oct 2015 07:28:00 GMT").retry_after());
}

TEST_CASE("predicates are false for other exceptions; transport errors are recognised") {
  const std::runtime_error other("x");
  CHECK_FALSE(is_not_found(other));
  CHECK_FALSE(is_transport_error(other));
  const TransportError transport(TransportErrorKind::kConnect, {}, "refused");
  CHECK(is_transport_error(transport));
  CHECK_FALSE(is_not_found(transport));
  CHECK_FALSE(is_transport_error(make_api_error(404, "", "")));
}
