// BodyReader::State: the connection lease, the parsed response header and the body's framing
// behind a BodyReader. Internal to the transport: Transport fills it when the
// response header arrives (start_body), BodyReader drains the body from the connection's buffer.
#pragma once

#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/parser.hpp>

#include <memory>
#include <string>

#include "client/transport/body_framing.hpp"
#include "client/transport/body_reader.hpp"
#include "client/transport/connection_pool.hpp"
#include "client/transport/transport_tracer.hpp"

namespace rg::client {

struct BodyReader::State {
  /// Bytes asked of the socket per read: large, so a fast stream costs few system calls and
  /// the receiver few window-update ACKs (each one, over loopback, also pushes the sender's next
  /// segments on this thread): 256 KiB took the informer's watch 7% more events per CPU-second
  /// than 64 KiB. Also the most a piece of the body handed out at once holds.
  static constexpr std::size_t kReadSize = std::size_t{256} * 1024;

  explicit State(ConnectionLease lease) : lease(std::move(lease)) {}
  State(const State&) = delete;
  State& operator=(const State&) = delete;
  ~State() = default;

  /// After the header: the body's framing from it. The body's reads keep the request's deadline
  /// (the connection's) until BodyReader::set_deadline changes it.
  void start_body() {
    if (parser.is_done()) {
      framing = BodyFraming::none();
    } else if (parser.chunked()) {
      framing = BodyFraming::chunked();
    } else if (const auto length = parser.content_length()) {
      framing = BodyFraming::length(*length);
    } else {
      framing = BodyFraming::until_close();
    }
  }

  ConnectionLease lease;
  boost::beast::http::response_parser<boost::beast::http::empty_body> parser;
  BodyFraming framing = BodyFraming::none();
  int status = 0;
  HttpHeaders headers;
  std::shared_ptr<TransportTracer> tracer;  ///< may be null
  std::string target;                       ///< the request's, for the tracer (set with it)
  bool done = false;
};

}  // namespace rg::client
