// RestEventSink: the EventSink that writes core/v1 Events to the API server through the
// RestClient (client-go's EventSinkImpl): create, and a merge patch of count, lastTimestamp and
// message for a repeat.
#pragma once

#include "client/record/event_recorder.hpp"
#include "client/rest/rest_client.hpp"

namespace rg::client {

class RestEventSink final : public EventSink {
 public:
  /// `client` must outlive the sink.
  explicit RestEventSink(RestClient& client) : client_(client) {}
  boost::asio::awaitable<void> create(const Event& event) override;
  boost::asio::awaitable<void> update_count(const Event& event) override;

 private:
  RestClient& client_;
};

}  // namespace rg::client
