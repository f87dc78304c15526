// Query: URL query strings as client-go writes them: keys sorted, values percent-encoded
// (RFC 3986 unreserved characters kept), so "app=web,tier!=db" is sent as app%3Dweb%2Ctier%21%3Ddb.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace rg::client {

/// Percent-encodes everything but A-Z a-z 0-9 - . _ ~ (a query value or a path segment).
std::string url_encode(std::string_view text);

class Query {
 public:
  /// Sets `key` (replacing an earlier value); an empty value is still sent ("key=").
  Query& set(std::string_view key, std::string_view value);
  /// Sets `key` only when `value` is not empty, as Go's omitempty options do.
  Query& set_if(std::string_view key, std::string_view value);

  bool empty() const { return values_.empty(); }
  /// "?a=1&b=2", or "" when empty.
  std::string str() const;

 private:
  std::map<std::string, std::string, std::less<>> values_;
};

}  // namespace rg::client
