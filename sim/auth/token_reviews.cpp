// TokenReview (kubernetes pkg/registry/authentication/tokenreview/storage.go, v1.35): the token
// is authenticated for spec.audiences (the API audiences when none), and status.audiences names
// those the token is good for.
#include "sim/auth/token_reviews.hpp"

#include <boost/json.hpp>

#include "sim/api_error.hpp"
#include "sim/body.hpp"
#include "sim/json_fields.hpp"
#include "sim/responses.hpp"

namespace rg::sim::auth {
namespace {

namespace json = boost::json;

json::array strings(const std::vector<std::string>& items) {
  return json::array(items.begin(), items.end());
}

/// authentication/v1 UserInfo: every field omitempty.
json::object user_info(const UserInfo& user) {
  json::object info;
  if (!user.name.empty()) info["username"] = user.name;
  if (!user.uid.empty()) info["uid"] = user.uid;
  if (!user.groups.empty()) info["groups"] = strings(user.groups);
  if (!user.extra.empty()) {
    json::object extra;
    for (const auto& [key, values] : user.extra) extra[key] = strings(values);
    info["extra"] = std::move(extra);
  }
  return info;
}

}  // namespace

HttpResponse serve_token_review(const HttpRequest& request, const Authenticator& authenticator) {
  json::object body = parse_object_body(request, "TokenReview", "authentication.k8s.io/v1");
  json::object spec;
  if (const auto* value = find_object(body, "spec")) spec = *value;
  const std::string token = string_at(spec, "token");
  if (token.empty())
    throw errors::bad_request("token is required for TokenReview in authentication");
  std::vector<std::string> audiences;
  if (const auto* value = spec.if_contains("audiences"); value != nullptr && value->is_array())
    for (const auto& audience : value->get_array())
      if (audience.is_string()) audiences.emplace_back(audience.get_string());
  const TokenAuthentication result = authenticator.review_token(token, audiences);
  // TokenReviewStatus: authenticated, audiences and error are omitempty; user is a struct.
  json::object status;
  if (result.user) status["authenticated"] = true;
  status["user"] = result.user ? user_info(*result.user) : json::object();
  if (!result.audiences.empty()) status["audiences"] = strings(result.audiences);
  if (!result.error.empty()) status["error"] = result.error;
  json::object response{{"kind", "TokenReview"},
                        {"apiVersion", "authentication.k8s.io/v1"},
                        {"metadata", json::object{{"creationTimestamp", nullptr}}},
                        {"spec", std::move(spec)},
                        {"status", std::move(status)}};
  return object_response(201, std::move(response));
}

}  // namespace rg::sim::auth
