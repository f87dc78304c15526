// Header lookup for HttpRequest/HttpResponse.
#include "client/transport/http_message.hpp"

namespace rg::client {

std::string_view find_header(const HttpHeaders& headers, std::string_view name) {
  for (const auto& [key, value] : headers) {
    if (equals_ignore_case(key, name)) return value;
  }
  return {};
}

}  // namespace rg::client
