// TokenRequests: the TokenRequest API, POST /api/v1/namespaces/NS/serviceaccounts/NAME/token
// (what `kubectl create token NAME -n NS` calls), minting ServiceAccount tokens that the
// Authenticator accepts.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "sim/auth/authenticator.hpp"
#include "sim/http_types.hpp"

namespace rg::sim::auth {

struct TokenRequestSpec {
  std::vector<std::string> audiences;     ///< empty = the API audiences
  std::chrono::seconds expiration{3600};  ///< 10 minutes to 2^32 seconds
};

class TokenRequests {
 public:
  TokenRequests(const Store& store, const ResourceTable& table, const Authenticator& authenticator,
                std::vector<std::string> api_audiences);

  /// A token for the ServiceAccount `name` in `namespace_`. Throws 404 NotFound when it does not
  /// exist, 422 Invalid for an expiration out of range.
  IssuedToken issue(std::string_view namespace_, std::string_view name,
                    const TokenRequestSpec& spec) const;

  /// Answers the POST: 201 with the TokenRequest and its status (token, expirationTimestamp).
  HttpResponse serve(const HttpRequest& request, std::string_view namespace_,
                     std::string_view name) const;

 private:
  const Store& store_;
  const ResourceType& service_accounts_;
  const Authenticator& authenticator_;
  std::vector<std::string> api_audiences_;
};

}  // namespace rg::sim::auth
