// TransportTracer: hooks that see what the transport puts on and takes off the wire, at the moment
// it happens -- a request written to its connection, a piece of a response body read from it --
// for latency tracing (e.g. "watch event arrived" -> "PATCH sent") and debugging. The hooks run
// on the thread doing the I/O, inline: they must be quick and thread-safe. No tracer (the
// default) costs nothing.
#pragma once

#include <string_view>

namespace rg::client {

class TransportTracer {
 public:
  virtual ~TransportTracer() = default;

  /// The whole request (header and body) has been handed to the connection's socket. `target`
  /// is the path and query as the caller gave it.
  virtual void on_request_written(std::string_view method, std::string_view target) = 0;

  /// `piece` of the body of the response to `target` has been read from the connection, before
  /// anything decoded it (watches, streamed lists and ordinary responses alike).
  virtual void on_body_read(std::string_view target, std::string_view piece) = 0;
};

}  // namespace rg::client
