// Bearer-token and basic-auth AuthProviders: a static token, a token file that is re-read when it
// changes (projected service-account tokens rotate), and username/password.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <string>

#include "client/config/rest_config.hpp"

namespace rg::client {

/// A bearer token fixed at load time (kubeconfig `token`).
class StaticToken : public AuthProvider {
 public:
  explicit StaticToken(std::string token) : header_("Bearer " + std::move(token)) {}
  boost::asio::awaitable<std::string> authorization() override;

 private:
  std::string header_;
};

/// HTTP basic auth (kubeconfig `username` / `password`).
class BasicAuth : public AuthProvider {
 public:
  BasicAuth(std::string_view username, std::string_view password);
  boost::asio::awaitable<std::string> authorization() override;

 private:
  std::string header_;
};

/// A bearer token read from a file (kubeconfig `tokenFile`, the in-cluster token). Like
/// client-go's cached file token source it re-reads the file at most a minute after the last
/// read, and also as soon as the file's modification time or size changes (checked with one
/// stat per request) or after invalidate(). A failed re-read keeps the last good token; the
/// optional fallback token is used when the file has never been readable.
class TokenFile : public AuthProvider {
 public:
  static constexpr std::chrono::seconds kMaxAge{60};

  explicit TokenFile(std::filesystem::path path, std::string fallback_token = {});

  boost::asio::awaitable<std::string> authorization() override;
  void invalidate() override;

  /// The current token (re-read if due); throws ConfigError when there is none.
  std::string token();

  const std::filesystem::path& path() const { return path_; }

 private:
  struct Stamp {
    std::filesystem::file_time_type mtime{};
    std::uintmax_t size = 0;
    friend bool operator==(const Stamp&, const Stamp&) = default;
  };

  std::filesystem::path path_;
  std::string fallback_;
  std::mutex mutex_;
  std::string token_;  ///< last good token, guarded by mutex_
  Stamp stamp_;
  std::chrono::steady_clock::time_point read_at_{};
  bool stale_ = true;
};

}  // namespace rg::client
