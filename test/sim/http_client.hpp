// A minimal blocking HTTP/1.1 client for kube-sim tests: one request per connection, and a
// watch reader that yields the stream's lines as they arrive. Every object served through it
// is checked to be in the wire form (wire_form_check.hpp).
#pragma once

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/json.hpp>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "wire_form_check.hpp"

namespace rg::sim::test {

namespace beast = boost::beast;
namespace http = beast::http;
using tcp = boost::asio::ip::tcp;

struct Reply {
  int status = 0;
  std::map<std::string, std::string> headers;  // lower-case names; the last of repeated ones
  std::vector<std::string> warnings;           // every Warning header, in order
  std::string body;
  bool chunked = false;
  boost::json::value json() const { return boost::json::parse(body); }
  std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
  }
};

inline http::request<http::string_body> make_request(
    const std::string& method, const std::string& target, const std::string& body,
    const std::vector<std::pair<std::string, std::string>>& headers) {
  http::request<http::string_body> request{http::string_to_verb(method), target, 11};
  request.set(http::field::host, "127.0.0.1");
  request.set(http::field::user_agent, "sim-test/1.0");
  if (!body.empty()) request.set(http::field::content_type, "application/json");
  for (const auto& [name, value] : headers) request.set(name, value);
  request.body() = body;
  request.prepare_payload();
  return request;
}

/// Writes the request to `stream` (a socket or a TLS stream) and reads the whole response.
template <class Stream>
Reply exchange(Stream& stream, const std::string& method, const std::string& target,
               const std::string& body,
               const std::vector<std::pair<std::string, std::string>>& headers) {
  http::write(stream, make_request(method, target, body, headers));
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(1024ULL * 1024 * 1024);
  http::read(stream, buffer, parser);
  auto response = parser.release();
  Reply reply;
  reply.status = static_cast<int>(response.result_int());
  reply.chunked = response.chunked();
  for (const auto& field : response) {
    std::string name(field.name_string());
    for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    reply.headers[name] = std::string(field.value());
    if (name == "warning") reply.warnings.emplace_back(field.value());
  }
  reply.body = response.body();
  check_served(reply.body);
  return reply;
}

inline Reply call(unsigned short port, const std::string& method, const std::string& target,
                  const std::string& body = "",
                  const std::vector<std::pair<std::string, std::string>>& headers = {}) {
  boost::asio::io_context io;
  tcp::socket socket(io);
  socket.connect(tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), port));
  return exchange(socket, method, target, body, headers);
}

/// A JSON string's text (other values serialized), for comparisons with std::string.
inline std::string str(const boost::json::value& value) {
  return value.is_string() ? std::string(value.get_string()) : boost::json::serialize(value);
}

/// metadata.resourceVersion of an object as the server answered it.
inline std::string rv_of(const boost::json::value& object) {
  return str(object.at("metadata").at("resourceVersion"));
}

/// Reads a streaming (watch) response line by line.
class WatchStream {
 public:
  WatchStream(unsigned short port, const std::string& target,
              const std::vector<std::pair<std::string, std::string>>& headers = {})
      : socket_(io_) {
    socket_.connect(tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), port));
    http::write(socket_, make_request("GET", target, "", headers));
    parser_.body_limit(boost::none);
    http::read_header(socket_, buffer_, parser_);
    // NOLINTNEXTLINE(cppcoreguidelines-prefer-member-initializer): known only after the read
    status_ = static_cast<int>(parser_.get().result_int());
  }

  int status() const { return status_; }
  bool chunked() const { return parser_.get().chunked(); }
  std::string content_type() const { return std::string(parser_.get()[http::field::content_type]); }

  /// The next line (without "\n"), or empty when the stream ended.
  std::string next_line() {
    for (;;) {
      auto newline = pending_.find('\n');
      if (newline != std::string::npos) {
        std::string line = pending_.substr(0, newline);
        pending_.erase(0, newline + 1);
        check_served(line);
        return line;
      }
      if (parser_.is_done()) return {};
      char chunk[8192];
      parser_.get().body().data = chunk;
      parser_.get().body().size = sizeof chunk;
      beast::error_code ec;
      http::read_some(socket_, buffer_, parser_, ec);
      if (ec && ec != http::error::need_buffer) return {};
      pending_.append(chunk, sizeof chunk - parser_.get().body().size);
    }
  }

  /// The next event, parsed; null when the stream ended.
  boost::json::value next_event() {
    auto line = next_line();
    if (line.empty()) return nullptr;
    return boost::json::parse(line);
  }

 private:
  boost::asio::io_context io_;
  tcp::socket socket_;
  beast::flat_buffer buffer_;
  http::response_parser<http::buffer_body> parser_;
  std::string pending_;
  int status_ = 0;
};

}  // namespace rg::sim::test
