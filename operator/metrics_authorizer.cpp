// The secure metrics endpoint's authentication and authorization (see metrics_authorizer.hpp).
#include "operator/metrics_authorizer.hpp"

#include <openssl/evp.h>
#include <spdlog/spdlog.h>

#include <boost/json.hpp>

#include <cctype>
#include <stdexcept>

#include "client/rest/api_error.hpp"

namespace rg::op {
namespace {

namespace json = boost::json;

const client::ResourceRef kTokenReviews{
    "authentication.k8s.io", "v1", "tokenreviews", false, {}, {}};
const client::ResourceRef kSubjectAccessReviews{
    "authorization.k8s.io", "v1", "subjectaccessreviews", false, {}, {}};

constexpr const char* kText = "text/plain; charset=utf-8";

/// The cache key of a token: its SHA-256, so that the cache holds no credentials.
std::string token_key(std::string_view token) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(token.data(), token.size(), digest, &length, EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("OpenSSL could not hash a bearer token");
  static constexpr char kHex[] = "0123456789abcdef";
  std::string key;
  for (unsigned int i = 0; i < length; ++i) {
    key.push_back(kHex[digest[i] >> 4]);
    key.push_back(kHex[digest[i] & 0x0f]);
  }
  return key;
}

/// The token of "Bearer <token>" (scheme case-insensitive, as apiserver's bearertoken
/// authenticator reads it); empty for anything else.
std::string_view bearer_token(std::string_view header) {
  const auto space = header.find(' ');
  if (space != 6) return {};
  std::string scheme(header.substr(0, space));
  for (auto& c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (scheme != "bearer") return {};
  std::string_view token = header.substr(space + 1);
  while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
  while (!token.empty() && token.back() == ' ') token.remove_suffix(1);
  return token;
}

std::string string_at(const json::object& object, std::string_view key) {
  const auto* value = object.if_contains(key);
  return value != nullptr && value->is_string() ? std::string(value->get_string()) : "";
}

const json::object& status_of(const json::value& review) {
  const auto* status = review.is_object() ? review.as_object().if_contains("status") : nullptr;
  if (status == nullptr || !status->is_object())
    throw std::runtime_error("the API server's review has no status");
  return status->as_object();
}

}  // namespace

MetricsAuthorizer::MetricsAuthorizer(client::RestClient& client, prometheus::Registry& registry,
                                     MetricsAuthConfig config)
    : client_(client),
      config_(config),
      reviews_(config.reviews_per_second, config.review_burst),
      counts_(prometheus::BuildCounter()
                  .Name("replica_guard_metrics_auth_reviews_total")
                  .Help("Authentication (TokenReview) and authorization (SubjectAccessReview) "
                        "answers for the secure /metrics endpoint, by review and outcome: "
                        "cached, reviewed (sent to the API server), throttled (over the cap on "
                        "reviews per second: refused without asking), failed (the review "
                        "itself failed)")
                  .Register(registry)),
      tokens_(config.max_cached),
      decisions_(config.max_cached) {}

void MetricsAuthorizer::count(std::string_view review, Outcome outcome) {
  static constexpr const char* kNames[] = {"cached", "reviewed", "throttled", "failed"};
  counts_.Add({{"review", std::string(review)}, {"outcome", kNames[static_cast<int>(outcome)]}})
      .Increment();
}

bool MetricsAuthorizer::may_review() { return reviews_.try_accept(); }

boost::asio::awaitable<MetricsAuthorizer::TokenIdentity> MetricsAuthorizer::review_token(
    const std::string& token) {
  json::value review = {{"apiVersion", "authentication.k8s.io/v1"},
                        {"kind", "TokenReview"},
                        {"spec", {{"token", token}}}};
  const client::CreateOptions options;  // g++ 12: no temporaries across co_await
  const json::value answer = co_await client_.create(kTokenReviews, review, options);
  const auto& status = status_of(answer);
  TokenIdentity identity;
  const auto* authenticated = status.if_contains("authenticated");
  identity.authenticated =
      authenticated != nullptr && authenticated->is_bool() && authenticated->as_bool();
  identity.error = string_at(status, "error");
  if (const auto* user = status.if_contains("user"); user != nullptr && user->is_object()) {
    identity.username = string_at(user->as_object(), "username");
    identity.uid = string_at(user->as_object(), "uid");
    if (const auto* groups = user->as_object().if_contains("groups");
        groups != nullptr && groups->is_array())
      for (const auto& group : groups->as_array())
        if (group.is_string()) identity.groups.emplace_back(group.as_string());
  }
  if (identity.authenticated && identity.username.empty())
    throw std::runtime_error("the TokenReview authenticated a token without a username");
  co_return identity;
}

boost::asio::awaitable<std::optional<bool>> MetricsAuthorizer::review_access(
    const TokenIdentity& user, const std::string& verb, const std::string& path) {
  json::array groups(user.groups.begin(), user.groups.end());
  json::object spec{{"user", user.username},
                    {"groups", std::move(groups)},
                    {"nonResourceAttributes", {{"path", path}, {"verb", verb}}}};
  if (!user.uid.empty()) spec["uid"] = user.uid;
  const std::string key = json::serialize(spec);
  {
    std::lock_guard lock(mutex_);
    if (auto cached = decisions_.get(key, ExpiringCache<bool>::Clock::now())) {
      count("subject_access", Outcome::kCached);
      co_return *cached;
    }
  }
  if (!may_review()) {
    count("subject_access", Outcome::kThrottled);
    co_return std::nullopt;
  }
  json::value review = {{"apiVersion", "authorization.k8s.io/v1"},
                        {"kind", "SubjectAccessReview"},
                        {"spec", std::move(spec)}};
  bool allowed = false;
  try {
    const client::CreateOptions options;
    const json::value answer = co_await client_.create(kSubjectAccessReviews, review, options);
    const auto* value = status_of(answer).if_contains("allowed");
    allowed = value != nullptr && value->is_bool() && value->as_bool();
  } catch (...) {
    count("subject_access", Outcome::kFailed);
    throw;
  }
  count("subject_access", Outcome::kReviewed);
  std::lock_guard lock(mutex_);
  decisions_.put(key, allowed, allowed ? config_.allowed_ttl : config_.denied_ttl,
                 ExpiringCache<bool>::Clock::now());
  co_return allowed;
}

boost::asio::awaitable<std::optional<HttpReply>> MetricsAuthorizer::admit(
    const HttpRequestHead& request) {
  const std::string_view token = bearer_token(request.authorization);
  if (token.empty()) co_return HttpReply{401, kText, "Unauthorized\n"};
  const std::string key = token_key(token);
  std::optional<TokenIdentity> identity;
  {
    std::lock_guard lock(mutex_);
    identity = tokens_.get(key, ExpiringCache<TokenIdentity>::Clock::now());
  }
  if (identity) {
    count("token", Outcome::kCached);
  } else if (!may_review()) {
    count("token", Outcome::kThrottled);
    spdlog::debug("metrics: token reviews over their cap; refusing an unreviewed token");
    co_return HttpReply{401, kText, "Unauthorized\n"};
  } else {
    try {
      const std::string owned(token);  // g++ 12: no temporaries across co_await
      identity = co_await review_token(owned);
    } catch (const std::exception& error) {
      count("token", Outcome::kFailed);
      spdlog::error("metrics: authentication failed: {}", error.what());
      co_return HttpReply{500, kText, "Authentication failed\n"};
    }
    count("token", Outcome::kReviewed);
    std::lock_guard lock(mutex_);
    tokens_.put(key, *identity, config_.token_ttl, ExpiringCache<TokenIdentity>::Clock::now());
  }
  if (!identity->authenticated) {
    spdlog::debug("metrics: authentication failed: {}", identity->error);
    co_return HttpReply{401, kText, "Unauthorized\n"};
  }
  std::string verb(request.method);
  for (auto& c : verb) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::string path(request.path);
  std::optional<bool> allowed;
  try {
    allowed = co_await review_access(*identity, verb, path);
  } catch (const std::exception& error) {
    const std::string message = "Authorization for user " + identity->username + " failed";
    spdlog::error("metrics: {}: {}", message, error.what());
    co_return HttpReply{500, kText, message + "\n"};
  }
  if (!allowed) co_return HttpReply{429, kText, "Too many access reviews; retry later\n"};
  if (!*allowed) {
    const std::string message = "Authorization denied for user " + identity->username;
    spdlog::debug("metrics: {}", message);
    co_return HttpReply{403, kText, message + "\n"};
  }
  co_return std::nullopt;
}

}  // namespace rg::op
