// Request body decoding for the authentication and authorization endpoints.
#include "sim/auth/request_body.hpp"

#include <fmt/format.h>
#include <boost/json/parse.hpp>

#include <ctime>

#include "client/protobuf/decoder.hpp"
#include "sim/api_error.hpp"

namespace rg::sim::auth {
namespace {

namespace json = boost::json;

namespace protobuf = client::protobuf;

// authorization/v1 SelfSubjectRulesReview (k8s.io/api authorization/v1 generated.proto), which
// the shared decoder does not know: metadata = 1, spec = 2 {namespace = 1}.
constexpr protobuf::FieldSpec kRulesReviewSpecFields[] = {
    protobuf::scalar(1, "namespace", protobuf::FieldKind::kString)};
constexpr protobuf::MessageSpec kRulesReviewSpec{"SelfSubjectRulesReviewSpec",
                                                 kRulesReviewSpecFields};
const protobuf::FieldSpec kRulesReviewFields[] = {
    protobuf::message(1, "metadata", protobuf::kObjectMeta),
    protobuf::message(2, "spec", kRulesReviewSpec)};
const protobuf::MessageSpec kRulesReview{"SelfSubjectRulesReview", kRulesReviewFields};

json::object decode_protobuf(std::string_view body) {
  auto envelope = protobuf::decode_envelope(body);
  if (protobuf::find_schema(envelope.api_version, envelope.kind) != nullptr ||
      envelope.api_version != "authorization.k8s.io/v1" ||
      envelope.kind != "SelfSubjectRulesReview")
    return protobuf::decode_object(body);
  if (!envelope.content_encoding.empty())
    throw protobuf::ProtobufError(
        fmt::format("unsupported content encoding \"{}\"", envelope.content_encoding), 0);
  json::object object = protobuf::decode_message(envelope.raw, kRulesReview);
  object["apiVersion"] = envelope.api_version;
  object["kind"] = envelope.kind;
  return object;
}

std::string_view media_type(std::string_view content_type) {
  auto semicolon = content_type.find(';');
  auto type = content_type.substr(0, semicolon);
  while (!type.empty() && type.back() == ' ') type.remove_suffix(1);
  return type;
}

}  // namespace

json::object decode_request_body(const HttpRequest& request, std::string_view kind,
                                 std::string_view api_version) {
  const auto type = media_type(request.header("content-type"));
  json::object body;
  if (type == protobuf::kContentType) {
    try {
      body = decode_protobuf(request.body);
    } catch (const protobuf::ProtobufError& error) {
      throw errors::bad_request(
          fmt::format("the protobuf body of the {} could not be decoded: {}", kind, error.what()));
    }
  } else if (type.empty() || type == "application/json" || type == "application/yaml") {
    boost::system::error_code ec;
    auto value = json::parse(request.body, ec);
    if (ec || !value.is_object())
      throw errors::bad_request(
          fmt::format("the body of the request must be a JSON {} object{}", kind,
                      ec ? fmt::format(": {}", ec.message()) : std::string()));
    body = std::move(value.get_object());
  } else {
    throw errors::unsupported_media_type("application/json, application/vnd.kubernetes.protobuf");
  }
  auto field = [&](std::string_view key) -> std::string_view {
    const auto* value = body.if_contains(key);
    return value != nullptr && value->is_string() ? std::string_view(value->get_string()) : "";
  };
  const auto sent_kind = field("kind");
  const auto sent_version = field("apiVersion");
  if ((!sent_kind.empty() && sent_kind != kind) ||
      (!sent_version.empty() && sent_version != api_version))
    throw errors::bad_request(
        fmt::format("the body of the request was a {} in {}, but this endpoint takes {} in {}",
                    sent_kind.empty() ? "object" : sent_kind,
                    sent_version.empty() ? "?" : sent_version, kind, api_version));
  return body;
}

std::string rfc3339(std::chrono::system_clock::time_point time) {
  std::time_t seconds = std::chrono::system_clock::to_time_t(time);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buffer;
}

}  // namespace rg::sim::auth
