// Fuzzes kube-sim's request parsing: the input is raw HTTP/1.1 request bytes, parsed as the
// server does (Beast's parser with kube-sim's body limit, the target split and percent-decoded,
// header names lower-cased), then read as the API server reads it: RequestInfo, ListOptions with
// selectors and continue token, and the body by Content-Type (JSON, YAML, protobuf, patches).
// Properties: bad requests fail only with ApiError (an HTTP answer); a resource request names a
// resource and, for the methods the API maps, a known verb; a continue token that decodes
// re-encodes to the same token.
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "sim/api_error.hpp"
#include "sim/body.hpp"
#include "sim/http_types.hpp"
#include "sim/list_options.hpp"
#include "sim/patch.hpp"
#include "sim/request_info.hpp"
#include "sim/resource_table.hpp"
#include "test/fuzz/fuzz_support.hpp"

namespace {

namespace http = boost::beast::http;
using namespace rg::sim;

constexpr std::size_t kBodyLimit = std::size_t{3} * 1024 * 1024;  // HttpServerOptions' default
constexpr std::array<std::string_view, 6> kMethods{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"};
constexpr std::array<std::string_view, 8> kResourceVerbs{
    "get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"};

/// The request as kube-sim's HttpServer hands it to the API server, or false when Beast
/// rejects the bytes (the server then closes the connection).
bool parse_request(std::string_view bytes, HttpRequest& request) {
  http::request_parser<http::string_body> parser;
  parser.eager(true);
  parser.body_limit(kBodyLimit);
  boost::beast::error_code ec;
  // As Beast's read loop feeds the parser: what it did not take is offered again only with more
  // bytes after it, and here there are none. (Offering the same few bytes again trips a wrong
  // assertion in Boost 1.81's chunk parser, boostorg/beast#2861, that no stream reader reaches.)
  while (!bytes.empty() && !parser.is_done()) {
    std::size_t used = parser.put(boost::asio::buffer(bytes.data(), bytes.size()), ec);
    bytes.remove_prefix(used);
    if (ec == http::error::need_more) {
      ec = {};
      break;
    }
    if (ec || used == 0) break;
  }
  if (!parser.got_some()) return false;  // the client sent nothing: the connection just ends
  if (!ec && !parser.is_done()) parser.put_eof(ec);
  if (ec || !parser.is_done()) return false;
  auto& message = parser.get();
  request.method = std::string(message.method_string());
  request.target = std::string(message.target());
  parse_target(request.target, request.path, request.query);
  for (const auto& field : message) {
    std::string name(field.name_string());
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    request.headers.emplace_back(std::move(name), std::string(field.value()));
  }
  request.body = std::move(message.body());
  return true;
}

void read_as_api_server(const HttpRequest& request) {
  RequestInfo info = parse_request_info(request);
  if (!info.is_resource_request) return;
  RG_FUZZ_CHECK(!info.resource.empty(), "a resource request without a resource: " + request.target);
  if (std::find(kMethods.begin(), kMethods.end(), request.method) != kMethods.end()) {
    RG_FUZZ_CHECK(
        std::find(kResourceVerbs.begin(), kResourceVerbs.end(), info.verb) != kResourceVerbs.end(),
        "unknown verb " + info.verb);
  }
  if (auto token = request.param("continue"); token && !token->empty()) {
    try {
      ContinueToken decoded = decode_continue(*token);
      ContinueToken again = decode_continue(encode_continue(decoded));
      RG_FUZZ_CHECK(
          again.resource_version == decoded.resource_version && again.start == decoded.start,
          std::string(*token));
    } catch (const ApiError&) {
    }
  }
  const ResourceType* type = ResourceTable::builtin().find(info.group, info.version, info.resource);
  if (type == nullptr) return;
  if (info.verb == "list" || info.verb == "watch" || info.verb == "deletecollection") {
    parse_list_options(request, *type, info.verb == "watch");
  } else if (info.verb == "patch") {
    patch_type_from(request.header("content-type"));
    rg::fuzz::check_reparses(decode_body(request));
  } else if (info.verb == "create" || info.verb == "update") {
    rg::fuzz::check_reparses(parse_object_body(request, type->kind, type->group_version()));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  HttpRequest request;
  if (!parse_request(rg::fuzz::as_text(data, size), request)) return 0;
  try {
    read_as_api_server(request);
  } catch (const ApiError&) {
  }
  return 0;
}
