// StaticToken, BasicAuth and TokenFile.
#include "client/config/token_auth.hpp"

#include <spdlog/spdlog.h>

#include <fstream>
#include <sstream>

#include "client/config/base64.hpp"
#include "client/config/config_error.hpp"
#include "client/text.hpp"

namespace rg::client {
namespace {

/// Reads and trims the token; returns the problem in `problem` and an empty string on failure.
std::string read_token(const std::filesystem::path& path, std::string& problem) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    problem = "cannot read the token file";
    return {};
  }
  std::stringstream content;
  content << in.rdbuf();
  std::string token(trim(content.str()));
  if (token.empty()) problem = "the token file is empty";
  return token;
}

}  // namespace

boost::asio::awaitable<std::string> StaticToken::authorization() { co_return header_; }

BasicAuth::BasicAuth(std::string_view username, std::string_view password)
    : header_("Basic " + base64_encode(std::string(username) + ":" + std::string(password))) {}

boost::asio::awaitable<std::string> BasicAuth::authorization() { co_return header_; }

TokenFile::TokenFile(std::filesystem::path path, std::string fallback_token)
    : path_(std::move(path)), fallback_(std::move(fallback_token)) {}

boost::asio::awaitable<std::string> TokenFile::authorization() { co_return "Bearer " + token(); }

void TokenFile::invalidate() {
  std::lock_guard lock(mutex_);
  stale_ = true;
}

std::string TokenFile::token() {
  std::lock_guard lock(mutex_);
  std::error_code ec;
  Stamp now{std::filesystem::last_write_time(path_, ec), 0};
  if (!ec) now.size = std::filesystem::file_size(path_, ec);
  auto clock = std::chrono::steady_clock::now();
  bool due = stale_ || token_.empty() || now != stamp_ || clock - read_at_ >= kMaxAge;
  if (due) {
    std::string problem;
    std::string fresh = read_token(path_, problem);
    if (!fresh.empty() || !token_.empty()) {
      // A failed re-read (e.g. in the middle of a rotation) is retried when the file changes
      // again or a minute later, not on every request.
      stamp_ = now;
      read_at_ = clock;
      stale_ = false;
    }
    if (!fresh.empty()) {
      token_ = std::move(fresh);
    } else if (!token_.empty()) {
      spdlog::warn("{}: {}; keeping the previous token", path_.string(), problem);
    } else if (!fallback_.empty()) {
      return fallback_;
    } else {
      throw ConfigError(path_.string(), 0, "token file", problem,
                        "check that the file exists, is readable and holds a bearer token");
    }
  }
  return token_;
}

}  // namespace rg::client
