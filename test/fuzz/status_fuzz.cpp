// Fuzzes the Status/error decoder: the first byte is an HTTP status code's offset from 400, the
// rest a response body. Properties: parse_status never throws; a body that is a Status encodes
// (to_json) to one that decodes to the same Status; make_api_error gives an error for any body
// and Retry-After, whose code is the HTTP status and which is_not_found recognises when it is one.
#include <boost/json/serialize.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "client/rest/api_error.hpp"
#include "client/rest/status.hpp"
#include "test/fuzz/fuzz_support.hpp"

using namespace rg::client;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  int http_status = 400 + data[0] % 200;
  auto parts = rg::fuzz::split_parts(rg::fuzz::as_text(data + 1, size - 1), 2);
  std::string_view body = parts[0];
  std::string_view retry_after = parts.size() > 1 ? parts[1] : std::string_view();

  if (std::optional<Status> status = parse_status(body)) {
    std::string encoded = rg::fuzz::check_reparses(to_json(*status));
    std::optional<Status> again = parse_status(encoded);
    RG_FUZZ_CHECK(again.has_value(), "an encoded Status does not decode: " + encoded);
    RG_FUZZ_CHECK(*again == *status, "a Status changed through encode and decode: " + encoded);
  }
  ApiError error = make_api_error(http_status, body, retry_after);
  RG_FUZZ_CHECK(error.code() == http_status, "the error lost its HTTP status");
  if (error.reason() == reason::kNotFound || (error.reason().empty() && http_status == 404)) {
    RG_FUZZ_CHECK(is_not_found(error), "a NotFound error is_not_found denies");
  }
  if (auto after = error.retry_after()) RG_FUZZ_CHECK(after->count() >= 0, "negative Retry-After");
  return 0;
}
