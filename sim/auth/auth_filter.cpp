// AuthFilter: authentication, authorization and the self-service endpoints.
#include "sim/auth/auth_filter.hpp"

#include "sim/auth/access_reviews.hpp"
#include "sim/auth/attributes.hpp"
#include "sim/auth/bootstrap_policy.hpp"
#include "sim/auth/impersonation.hpp"
#include "sim/auth/subject_access_reviews.hpp"
#include "sim/auth/token_reviews.hpp"

namespace rg::sim::auth {
namespace {

/// Whether a request may be one of the endpoints served here (a cheap test, so that with
/// authentication off ordinary requests are not parsed twice).
bool may_be_served_here(const HttpRequest& request) {
  if (request.method != "POST") return false;
  const std::string_view path = request.path;
  return path.ends_with("/token") || path.ends_with("/selfsubjectaccessreviews") ||
         path.ends_with("/selfsubjectrulesreviews") || path.ends_with("/selfsubjectreviews") ||
         path.ends_with("/tokenreviews") || path.ends_with("/subjectaccessreviews");
}

}  // namespace

AuthFilter::AuthFilter(Registry& registry, AuthOptions options)
    : options_(std::move(options)),
      authenticator_(registry.store(), registry.table(), options_),
      authorizer_(registry.store(), registry.table()),
      token_requests_(registry.store(), registry.table(), authenticator_, options_.api_audiences) {
  if (options_.enabled) bootstrap_policy(registry);
}

std::optional<Attributes> AuthFilter::admit(HttpRequest& request) const {
  if (!options_.enabled && !may_be_served_here(request)) {
    request.user = admin_user().name;
    return std::nullopt;
  }
  UserInfo user = options_.enabled
                      ? impersonate(request, authenticator_.authenticate(request), authorizer_)
                      : admin_user();
  request.user = user.name;
  Attributes attributes = request_attributes(request, std::move(user));
  if (options_.enabled) {
    const Decision decision = authorizer_.authorize(attributes);
    if (!decision.allowed) throw forbidden(attributes, decision.reason);
  }
  if (!attributes.resource_request || attributes.verb != "create" || attributes.version != "v1")
    return std::nullopt;
  const bool token = attributes.group.empty() && attributes.resource == "serviceaccounts" &&
                     attributes.subresource == "token" && !attributes.namespace_.empty();
  const bool review =
      attributes.name.empty() && attributes.namespace_.empty() &&
      ((attributes.group == "authorization.k8s.io" &&
        (attributes.resource == "selfsubjectaccessreviews" ||
         attributes.resource == "selfsubjectrulesreviews" ||
         attributes.resource == "subjectaccessreviews")) ||
       (attributes.group == "authentication.k8s.io" &&
        (attributes.resource == "selfsubjectreviews" || attributes.resource == "tokenreviews")));
  if (!token && !review) return std::nullopt;
  return attributes;
}

HttpResponse AuthFilter::serve(const HttpRequest& request, const Attributes& attributes) const {
  if (attributes.resource == "serviceaccounts")
    return token_requests_.serve(request, attributes.namespace_, attributes.name);
  if (attributes.resource == "selfsubjectaccessreviews")
    return serve_self_subject_access_review(request, attributes.user, authorizer_);
  if (attributes.resource == "subjectaccessreviews")
    return serve_subject_access_review(request, authorizer_, options_.enabled);
  if (attributes.resource == "tokenreviews") return serve_token_review(request, authenticator_);
  if (attributes.resource == "selfsubjectrulesreviews")
    return serve_self_subject_rules_review(request, attributes.user, authorizer_);
  return serve_self_subject_review(request, attributes.user);
}

boost::asio::awaitable<bool> AuthFilter::intercept(HttpRequest& request, ResponseStream& stream) {
  const auto served_here = admit(request);
  // The next hook (injected faults) runs for the endpoints answered here too: a faulted
  // SelfSubjectAccessReview fails like any other request.
  if (next_) {
    const bool answered = co_await next_(request, stream);
    if (answered) co_return true;
  }
  if (!served_here) co_return false;
  HttpResponse response = serve(request, *served_here);
  co_await stream.send(response);
  co_return true;
}

}  // namespace rg::sim::auth
