// WATCH: resolves where the stream starts (initial state or an exact resourceVersion), then
// streams events -- filtered by selectors, entering/leaving objects as ADDED/DELETED --
// with bookmarks, the initial-events-end bookmark and the server-side deadline.
// g++ 12 reports a false -Wmismatched-new-delete for Asio's awaitable frames when the
// awaitable operators (`||`) allocate them; the frame's own operator new/delete pair is used.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
#include <fmt/format.h>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/json.hpp>

#include <optional>
#include <random>

#include "sim/api_error.hpp"
#include "sim/collection_handlers.hpp"
#include "sim/list_options.hpp"
#include "sim/object_encoder.hpp"
#include "sim/wire_form.hpp"

namespace rg::sim {
namespace {

using namespace boost::asio::experimental::awaitable_operators;
using Clock = std::chrono::steady_clock;
namespace json = boost::json;

const Headers kWatchHeaders = {{"Content-Type", "application/json"},
                               {"Cache-Control", "no-cache, private"}};

// A BOOKMARK event: an empty object of the type, as encoding/json writes one (a Pod's carries
// `"spec":{"containers":null},"status":{}`), with only the resourceVersion (and the
// initial-events-end annotation) set.
std::string bookmark_line(const ResourceType& type, std::uint64_t rv, bool initial_events_end) {
  json::object object{{"kind", type.kind}, {"apiVersion", type.group_version()}};
  auto& metadata = object["metadata"].emplace_object();
  metadata["resourceVersion"] = std::to_string(rv);
  if (initial_events_end)
    metadata["annotations"] = json::object{{"k8s.io/initial-events-end", "true"}};
  if (type.wire != nullptr) to_wire_form(*type.wire, object);
  return R"({"type":"BOOKMARK","object":)" + json::serialize(object) + "}\n";
}

// The previous state of an object that left the selection, carrying the event's version.
ObjectPtr with_resource_version(const ObjectPtr& object, std::uint64_t rv) {
  auto parsed = object->parse();
  parsed["metadata"].as_object()["resourceVersion"] = std::to_string(rv);
  return make_stored_object(*object->type, parsed);
}

class WatchSession {
 public:
  WatchSession(Registry& registry, const ResourceType& type, ResponseStream& stream,
               ListOptions options, std::unique_ptr<ObjectEncoder> encoder,
               const WatchSettings& settings)
      : registry_(registry),
        type_(type),
        stream_(stream),
        options_(std::move(options)),
        encoder_(std::move(encoder)),
        settings_(settings) {}

  boost::asio::awaitable<void> run(const WatchStart& start) {
    auto deadline = Clock::now() + timeout();
    std::uint64_t last_rv = 0;
    if (start.initial) {
      last_rv = start.initial->resource_version;
      ChunkBuilder chunk;
      for (const auto& object : start.initial->items) {
        if (!matches(*object)) continue;
        encoder_->watch_event("ADDED", object, chunk);
        if (chunk.size() >= kChunkBytes) {
          co_await stream_.chunk(chunk.parts());
          chunk.clear();
        }
      }
      if (options_.allow_watch_bookmarks) chunk.add_owned(bookmark_line(type_, last_rv, true));
      co_await stream_.chunk(chunk.parts());
    }
    auto next_bookmark = Clock::now() + settings_.bookmark_interval;
    // The timer wakes the watcher at the next bookmark or the deadline and is set again only
    // when that moment changes: racing it against each wait (`wait() || timer`) spawned two
    // coroutines and threw an operation_aborted for every event.
    boost::asio::steady_timer timer(stream_.executor());
    std::optional<Clock::time_point> armed;
    auto& watcher = *start.watcher;
    for (;;) {
      auto wake = options_.allow_watch_bookmarks ? std::min(deadline, next_bookmark) : deadline;
      if (armed != wake) {
        armed = wake;
        timer.expires_at(wake);
        timer.async_wait([woken = start.watcher](const boost::system::error_code& error) {
          if (!error) woken->wake();
        });
      }
      co_await watcher.wait();
      // A bookmark promises every change up to its resourceVersion. The store's is that only if
      // the watcher is still open once its events are taken: then every change up to it was
      // pushed and none was discarded. A watcher closed meanwhile (dropped, overflowed,
      // unwatched) misses later changes, and a bookmark past them would have the client resume
      // after changes it never saw.
      const std::uint64_t store_rv = registry_.store().resource_version();
      auto events = watcher.take();
      const bool receiving = !watcher.closed();
      ChunkBuilder chunk;
      for (const auto& event : events) {
        encode(event, chunk);
        last_rv = event.object->resource_version;
        if (chunk.size() >= kChunkBytes) {
          co_await stream_.chunk(chunk.parts());
          chunk.clear();
        }
      }
      const auto now = Clock::now();
      if (options_.allow_watch_bookmarks && receiving && now >= next_bookmark) {
        chunk.add_owned(bookmark_line(type_, std::max(store_rv, last_rv), false));
        next_bookmark = now + settings_.bookmark_interval;
      }
      co_await stream_.chunk(chunk.parts());
      if (events.empty() && watcher.closed()) break;
      if (now >= deadline) break;
    }
  }

 private:
  std::chrono::milliseconds timeout() const {
    if (options_.timeout_seconds && *options_.timeout_seconds > 0)
      return std::chrono::seconds(*options_.timeout_seconds);
    static thread_local std::mt19937 random{std::random_device{}()};
    auto min = std::chrono::duration_cast<std::chrono::milliseconds>(settings_.min_request_timeout);
    std::uniform_int_distribution<std::int64_t> extra(0,
                                                      std::max<std::int64_t>(0, min.count() - 1));
    return min + std::chrono::milliseconds(extra(random));
  }

  bool matches(const StoredObject& object) const {
    return options_.selection.empty() || options_.selection.matches(object);
  }

  void encode(const StoreEvent& event, ChunkBuilder& chunk) {
    const bool now_in = matches(*event.object);
    switch (event.type) {
      case EventType::kAdded:
        if (now_in) encoder_->watch_event("ADDED", event.object, chunk);
        break;
      case EventType::kDeleted:
        if (now_in) encoder_->watch_event("DELETED", event.object, chunk);
        break;
      case EventType::kModified: {
        const bool was_in = event.previous && matches(*event.previous);
        if (now_in && was_in)
          encoder_->watch_event("MODIFIED", event.object, chunk);
        else if (now_in)
          encoder_->watch_event("ADDED", event.object, chunk);
        else if (was_in)
          encoder_->watch_event(
              "DELETED", with_resource_version(event.previous, event.object->resource_version),
              chunk);
        break;
      }
    }
  }

  Registry& registry_;
  const ResourceType& type_;
  ResponseStream& stream_;
  ListOptions options_;
  std::unique_ptr<ObjectEncoder> encoder_;
  const WatchSettings& settings_;
};

}  // namespace

boost::asio::awaitable<void> serve_watch(Registry& registry, const ResourceType& type,
                                         std::string_view namespace_, const HttpRequest& request,
                                         ResponseStream& stream, const Negotiation& negotiation,
                                         const WatchSettings& settings) {
  ListOptions options = parse_list_options(request, type, true, settings.watch_list);
  Store& store = registry.store();
  const std::string rv = options.resource_version.value_or("");
  std::optional<std::uint64_t> from;
  bool initial = false;
  if (options.send_initial_events.value_or(rv.empty() || rv == "0")) {
    // Explicit watch-list, or a legacy "0"/"" watch (defaulted to sendInitialEvents=true).
    initial = true;
    if (!rv.empty() && rv != "0") {
      auto at_least = parse_resource_version(rv);
      auto current = store.resource_version();
      if (at_least > current) throw errors::too_large_resource_version(at_least, current);
    }
  } else {
    from = rv.empty() || rv == "0" ? store.resource_version() : parse_resource_version(rv);
  }

  WatchStart start;
  std::optional<client::Status> failure;
  try {
    start = store.watch(type, namespace_, initial ? std::nullopt : from);
  } catch (const ApiError& error) {
    if (error.code() != 410 && error.code() != 504) throw;
    failure = error.status();
  }
  co_await stream.begin(200, kWatchHeaders);
  if (failure) {
    std::string line =
        R"({"type":"ERROR","object":)" + boost::json::serialize(client::to_json(*failure)) + "}\n";
    std::string_view part = line;
    co_await stream.chunk({&part, 1});
    co_await stream.end();
    co_return;
  }
  auto encoder = negotiation.table ? make_table_encoder(type, negotiation.table_api_version,
                                                        negotiation.include_object)
                                   : make_json_encoder(type);
  WatchSession session(registry, type, stream, std::move(options), std::move(encoder), settings);
  std::exception_ptr problem;
  try {
    co_await (session.run(start) || stream.wait_closed());
  } catch (...) {
    problem = std::current_exception();
  }
  store.unwatch(type, start.watcher);
  if (problem) std::rethrow_exception(problem);
  co_await stream.end();
}

}  // namespace rg::sim
