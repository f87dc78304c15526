// The TokenRequest API (kubernetes pkg/registry/core/serviceaccount/storage/token.go, defaults
// and validation of authentication/v1 TokenRequest).
#include "sim/auth/token_requests.hpp"

#include <fmt/format.h>
#include <boost/json.hpp>

#include "client/model/time.hpp"
#include "sim/api_error.hpp"
#include "sim/auth/required_type.hpp"
#include "sim/body.hpp"
#include "sim/json_fields.hpp"
#include "sim/responses.hpp"

namespace rg::sim::auth {
namespace {

namespace json = boost::json;

constexpr std::int64_t kMinExpirationSeconds = 600;
constexpr std::int64_t kMaxExpirationSeconds = std::int64_t{1} << 32;

// Validation errors name no object (token.go: NewInvalid(gvk.GroupKind(), "", errs)).
ApiError invalid_token_request(std::string detail) {
  return errors::invalid("authentication.k8s.io", "TokenRequest", "",
                         {{"FieldValueInvalid", "spec.expirationSeconds", std::move(detail)}});
}

}  // namespace

TokenRequests::TokenRequests(const Store& store, const ResourceTable& table,
                             const Authenticator& authenticator,
                             std::vector<std::string> api_audiences)
    : store_(store),
      table_(table),
      service_accounts_(required_type(table, "", "serviceaccounts")),
      authenticator_(authenticator),
      api_audiences_(std::move(api_audiences)) {}

BoundObject TokenRequests::bind(std::string_view namespace_, std::string_view service_account,
                                BoundObjectRef& ref) const {
  const auto slash = ref.api_version.find('/');
  const std::string group = slash == std::string::npos ? "" : ref.api_version.substr(0, slash);
  const std::string version =
      slash == std::string::npos ? ref.api_version : ref.api_version.substr(slash + 1);
  const ResourceType* type =
      group.empty() && (ref.kind == "Pod" || ref.kind == "Secret" || ref.kind == "Node")
          ? table_.find_kind("", ref.kind)
          : nullptr;
  if (type == nullptr)
    throw errors::bad_request(fmt::format("cannot bind token to object of type {}/{}, Kind={}",
                                          group, version, ref.kind));
  auto object = store_.get(*type, type->namespaced ? namespace_ : "", ref.name);
  if (!object) throw errors::not_found(*type, ref.name);
  if (ref.kind == "Pod") {
    const auto pod = object->parse();
    std::string runs_as = "default";
    if (const auto* spec = pod.if_contains("spec"); spec != nullptr && spec->is_object())
      if (const auto* sa = spec->get_object().if_contains("serviceAccountName");
          sa != nullptr && sa->is_string() && !sa->get_string().empty())
        runs_as = std::string(sa->get_string());
    if (runs_as != service_account)
      throw errors::bad_request(
          fmt::format("cannot bind token for serviceaccount \"{}\" to pod running with different "
                      "serviceaccount name.",
                      service_account));
  }
  if (!ref.uid.empty() && ref.uid != object->uid) {
    client::Status status;
    status.status = "Failure";
    status.code = 409;
    status.reason = std::string(client::reason::kConflict);
    status.message = fmt::format(
        "Operation cannot be fulfilled on {} \"{}\": the UID in the bound object reference ({}) "
        "does not match the UID in record. The object might have been deleted and then "
        "recreated",
        ref.kind, ref.name, ref.uid);
    status.details = client::StatusDetails{ref.name, "", ref.kind, "", {}, 0};
    throw ApiError(std::move(status));
  }
  ref.uid = object->uid;
  return {ref.kind, ref.name, object->uid};
}

IssuedToken TokenRequests::issue(std::string_view namespace_, std::string_view name,
                                 TokenRequestSpec& spec) const {
  const auto seconds = spec.expiration.count();
  if (seconds < kMinExpirationSeconds)
    throw invalid_token_request(
        fmt::format("Invalid value: {}: may not specify a duration less than 10 minutes", seconds));
  if (seconds > kMaxExpirationSeconds)
    throw invalid_token_request(fmt::format(
        "Invalid value: {}: may not specify a duration larger than 2^32 seconds", seconds));
  auto account = store_.get(service_accounts_, namespace_, name);
  if (!account) throw errors::not_found(service_accounts_, name);
  const auto now = std::chrono::system_clock::now();
  TokenClaims claims;
  if (spec.bound_object) claims.bound = bind(namespace_, name, *spec.bound_object);
  claims.namespace_ = std::string(namespace_);
  claims.service_account = std::string(name);
  claims.service_account_uid = account->uid;
  claims.audiences = spec.audiences.empty() ? api_audiences_ : spec.audiences;
  claims.expires = now + spec.expiration;
  return authenticator_.tokens().issue(claims, now);
}

HttpResponse TokenRequests::serve(const HttpRequest& request, std::string_view namespace_,
                                  std::string_view name) const {
  json::object body = parse_object_body(request, "TokenRequest", "authentication.k8s.io/v1");
  json::object spec;
  if (const auto* value = body.if_contains("spec"); value != nullptr && value->is_object())
    spec = value->get_object();
  TokenRequestSpec wanted;
  if (const auto* audiences = spec.if_contains("audiences");
      audiences != nullptr && audiences->is_array())
    for (const auto& audience : audiences->get_array())
      if (audience.is_string()) wanted.audiences.emplace_back(audience.get_string());
  if (const auto* expiration = spec.if_contains("expirationSeconds");
      expiration != nullptr && expiration->is_number()) {
    boost::system::error_code ec;
    const auto seconds = expiration->to_number<std::int64_t>(ec);
    if (ec) throw errors::bad_request("spec.expirationSeconds must be an integer");
    wanted.expiration = std::chrono::seconds(seconds);
  }
  if (const auto* ref = spec.if_contains("boundObjectRef"); ref != nullptr && ref->is_object()) {
    auto field = [&](std::string_view key) { return string_at(ref->get_object(), key); };
    wanted.bound_object =
        BoundObjectRef{field("kind"), field("apiVersion"), field("name"), field("uid")};
  }
  const IssuedToken token = issue(namespace_, name, wanted);

  json::array audiences;
  for (const auto& audience : wanted.audiences.empty() ? api_audiences_ : wanted.audiences)
    audiences.emplace_back(audience);
  json::object out_spec{{"audiences", std::move(audiences)},
                        {"expirationSeconds", wanted.expiration.count()},
                        {"boundObjectRef", nullptr}};
  if (const auto& bound = wanted.bound_object)
    out_spec["boundObjectRef"] = json::object{{"kind", bound->kind},
                                              {"apiVersion", bound->api_version},
                                              {"name", bound->name},
                                              {"uid", bound->uid}};
  json::object response{
      {"kind", "TokenRequest"},
      {"apiVersion", "authentication.k8s.io/v1"},
      {"metadata",
       json::object{{"name", name},
                    {"namespace", namespace_},
                    {"uid", token.service_account_uid},
                    {"creationTimestamp", client::format_time(std::chrono::system_clock::now())}}},
      {"spec", std::move(out_spec)},
      {"status", json::object{{"token", token.token},
                              {"expirationTimestamp", client::format_time(token.expires)}}}};
  return object_response(201, std::move(response));
}

}  // namespace rg::sim::auth
