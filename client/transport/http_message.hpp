// HttpRequest and HttpResponse: the transport's plain, Beast-free view of one HTTP/1.1 exchange.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "client/text.hpp"

namespace rg::client {

/// When a request must be done by; kNoDeadline = never (watches).
using Deadline = std::chrono::steady_clock::time_point;
inline constexpr Deadline kNoDeadline = Deadline::max();

using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

/// The value of the first header called `name` (compared case-insensitively), or empty.
std::string_view find_header(const HttpHeaders& headers, std::string_view name);

struct HttpRequest {
  std::string method;   ///< "GET", "POST", ...
  std::string target;   ///< path and query, already encoded: "/api/v1/pods?limit=500"
  HttpHeaders headers;  ///< beyond Host, User-Agent and Content-Length, which the transport sets
  std::string body;
};

struct HttpResponse {
  int status = 0;
  HttpHeaders headers;
  std::string body;

  std::string_view header(std::string_view name) const { return find_header(headers, name); }
};

}  // namespace rg::client
