// TokenRequests: the TokenRequest API, POST /api/v1/namespaces/NS/serviceaccounts/NAME/token
// (what `kubectl create token NAME -n NS` calls), minting ServiceAccount tokens that the
// Authenticator accepts.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/auth/authenticator.hpp"
#include "sim/http_types.hpp"

namespace rg::sim::auth {

/// spec.boundObjectRef: a Pod (running as the ServiceAccount), Secret or Node.
struct BoundObjectRef {
  std::string kind;
  std::string api_version;
  std::string name;
  std::string uid;  ///< when given, must be the object's
};

struct TokenRequestSpec {
  std::vector<std::string> audiences;     ///< empty = the API audiences
  std::chrono::seconds expiration{3600};  ///< 10 minutes to 2^32 seconds
  std::optional<BoundObjectRef> bound_object;
};

class TokenRequests {
 public:
  TokenRequests(const Store& store, const ResourceTable& table, const Authenticator& authenticator,
                std::vector<std::string> api_audiences);

  /// A token for the ServiceAccount `name` in `namespace_`, bound to spec.bound_object if set
  /// (its uid is filled in). Throws 404 NotFound when the ServiceAccount or the bound object does
  /// not exist, 422 Invalid for an expiration out of range, 400 for a Pod running as another
  /// ServiceAccount or another kind, 409 for a stale bound uid.
  IssuedToken issue(std::string_view namespace_, std::string_view name,
                    TokenRequestSpec& spec) const;

  /// Answers the POST: 201 with the TokenRequest and its status (token, expirationTimestamp).
  HttpResponse serve(const HttpRequest& request, std::string_view namespace_,
                     std::string_view name) const;

 private:
  BoundObject bind(std::string_view namespace_, std::string_view service_account,
                   BoundObjectRef& ref) const;

  const Store& store_;
  const ResourceTable& table_;
  const ResourceType& service_accounts_;
  const Authenticator& authenticator_;
  std::vector<std::string> api_audiences_;
};

}  // namespace rg::sim::auth
