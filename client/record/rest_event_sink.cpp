// The API server's EventSink (see rest_event_sink.hpp).
#include "client/record/rest_event_sink.hpp"

#include <boost/json/serialize.hpp>

#include "client/model/codec.hpp"

namespace rg::client {

namespace json = boost::json;

boost::asio::awaitable<void> RestEventSink::create(const Event& event) {
  const json::value object = to_json(event);
  const ResourceRef events = resources::events().in(event.metadata.namespace_);
  const CreateOptions options;  // named: g++ 12 double-destroys defaulted coroutine arguments
  co_await client_.create(events, object, options);
}

boost::asio::awaitable<void> RestEventSink::update_count(const Event& event) {
  const json::value patch = {
      {"count", event.count}, {"lastTimestamp", event.last_timestamp}, {"message", event.message}};
  const std::string body = json::serialize(patch);
  const ResourceRef events = resources::events().in(event.metadata.namespace_);
  const PatchOptions options;
  co_await client_.patch(events, event.metadata.name, PatchType::kMerge, body, options);
}

}  // namespace rg::client
