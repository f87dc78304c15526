// Pretty printing, as the API server does it (AS pkg/endpoints/handlers/negotiation/negotiate.go
// isPrettyPrint, v0.35.7): a non-empty `pretty` query parameter decides by strconv.ParseBool,
// a value it cannot parse meaning false; without one, User-Agents starting with "curl", "Wget"
// or "Mozilla/5.0" get it. The pretty JSON serializer is json.MarshalIndent(obj, "", "  ")
// (AM pkg/runtime/serializer/json/json.go doEncode): two spaces per level, `"key": value`, no
// trailing newline; watch streams are never pretty (their serializer has no such option).
#pragma once

#include <string>
#include <string_view>

#include "sim/http_types.hpp"

namespace rg::sim {

/// Go's strconv.ParseBool with the error read as false: 1 t T TRUE true True are true.
bool parse_bool_or_false(std::string_view text);

/// isPrettyPrint.
bool pretty_print(const HttpRequest& request);

/// Compact JSON re-indented as encoding/json's MarshalIndent with prefix "" and indent "  ".
std::string indent_json(std::string_view compact);

/// Wraps a response stream: JSON bodies, sent whole or streamed in chunks, reach `inner`
/// indented (a streamed body is gathered and sent as one chunk at its end, as the API server's
/// pretty serializer marshals the whole object first).
class PrettyStream final : public ResponseStream {
 public:
  explicit PrettyStream(ResponseStream& inner) : inner_(inner) {}
  boost::asio::awaitable<void> send(HttpResponse& response) override;
  boost::asio::awaitable<void> begin(int status, const Headers& headers) override;
  boost::asio::awaitable<void> chunk(std::span<const std::string_view> parts) override;
  boost::asio::awaitable<void> end() override;
  boost::asio::awaitable<void> wait_closed() override { return inner_.wait_closed(); }
  boost::asio::any_io_executor executor() override { return inner_.executor(); }

 private:
  ResponseStream& inner_;
  bool gathering_ = false;
  int status_ = 200;
  Headers headers_;
  std::string body_;
};

}  // namespace rg::sim
