// MetricsAuthorizer: who may read the secure /metrics, decided as controller-runtime's
// filters.WithAuthenticationAndAuthorization decides (pkg/metrics/filters/filters.go, v0.19+):
// the request's bearer token goes to a TokenReview, the user it names to a SubjectAccessReview
// for `get` on the non-resource URL /metrics. No token or a refused one: 401; not allowed: 403;
// a review that itself fails: 500. Answers are cached as controller-runtime configures apiserver's
// delegating authenticator and authorizer (token reviews 1 min, good or bad; allowed 5 min,
// denied 30 s), in bounded caches, and a global token bucket caps the reviews sent per second
// so that a flood of unknown tokens cannot flood the API server (tokens over the cap: 401; an
// access review over it: 429).
#pragma once

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/registry.h>
#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "client/rest/rest_client.hpp"
#include "client/rest/token_bucket.hpp"
#include "operator/expiring_cache.hpp"
#include "operator/http_server.hpp"

namespace rg::op {

struct MetricsAuthConfig {
  std::chrono::seconds token_ttl{60};     ///< controller-runtime's CacheTTL
  std::chrono::seconds allowed_ttl{300};  ///< AllowCacheTTL
  std::chrono::seconds denied_ttl{30};    ///< DenyCacheTTL
  std::size_t max_cached = 4096;          ///< per cache
  double reviews_per_second = 5;          ///< global cap on reviews sent (both kinds)
  int review_burst = 10;
};

class MetricsAuthorizer {
 public:
  MetricsAuthorizer(client::RestClient& client, prometheus::Registry& registry,
                    MetricsAuthConfig config = {});

  /// The HttpFilter of the secure metrics server: nullopt lets the request through.
  boost::asio::awaitable<std::optional<HttpReply>> admit(const HttpRequestHead& request);

 private:
  /// What a TokenReview said about a token.
  struct TokenIdentity {
    bool authenticated = false;
    std::string username;
    std::string uid;
    std::vector<std::string> groups;
    std::string error;  ///< status.error of a refused token
  };
  enum class Outcome { kCached, kReviewed, kThrottled, kFailed };

  boost::asio::awaitable<TokenIdentity> review_token(const std::string& token);
  /// Whether `user` may `verb` `path`; nullopt when over the cap on reviews.
  boost::asio::awaitable<std::optional<bool>> review_access(const TokenIdentity& user,
                                                            const std::string& verb,
                                                            const std::string& path);
  /// Takes a review from the global cap; counts a refusal.
  bool may_review();
  void count(std::string_view review, Outcome outcome);

  client::RestClient& client_;
  MetricsAuthConfig config_;
  client::TokenBucket reviews_;
  prometheus::Family<prometheus::Counter>& counts_;
  std::mutex mutex_;  // guards the caches (sessions may run on several threads)
  ExpiringCache<TokenIdentity> tokens_;
  ExpiringCache<bool> decisions_;
};

}  // namespace rg::op
