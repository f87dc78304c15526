// The event broadcaster against a real API server (in-process kube-sim) through
// RestEventSink: Events are stored as core/v1 Events, a repeat raises the stored count, and a
// repeat of an Event deleted meanwhile (expired) is created again.
#include <doctest/doctest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json.hpp>

#include <functional>
#include <map>
#include <string>

#include "client/record/event_broadcaster.hpp"
#include "client/record/rest_event_sink.hpp"
#include "client/rest/rest_client.hpp"
#include "sim/server.hpp"
#include "test/client/record/counting_metrics.hpp"

namespace asio = boost::asio;
namespace json = boost::json;
using namespace std::chrono_literals;

namespace {

rg::client::ObjectReference web() {
  rg::client::ObjectReference ref;
  ref.api_version = "apps/v1";
  ref.kind = "Deployment";
  ref.namespace_ = "default";
  ref.name = "web";
  ref.uid = "uid-web";
  return ref;
}

struct Stored {
  std::string name;
  std::int64_t count;
  std::string message;
};

struct Fixture {
  // First, so it is destroyed last: the client's pooled connections were made on it.
  asio::io_context io;
  rg::sim::Server server;
  rg::client::RestClient client{server.rest_config()};
  rg::client::RestEventSink sink{client};
  rg::client::test::CountingMetrics metrics;
  std::chrono::system_clock::time_point clock = std::chrono::system_clock::now();

  rg::client::EventBroadcasterConfig config() {
    rg::client::EventBroadcasterConfig c;
    c.component = "replica-guard";
    c.instance = "rg-0";
    c.clock = [this] { return clock; };
    return c;
  }

  // Runs `work` to completion while the broadcaster's writer, if started, runs alongside.
  void run(std::function<asio::awaitable<void>()> work) {
    bool finished = false;
    std::exception_ptr error;
    asio::co_spawn(io, work(), [&](std::exception_ptr e) {
      finished = true;
      error = e;
    });
    run_until([&] { return finished; });
    if (error) std::rethrow_exception(error);
  }

  void run_until(const std::function<bool()>& done) {
    while (!done() && io.run_one() > 0) {
    }
    io.restart();
    REQUIRE(done());
  }

  // The stored Events about web, by reason.
  std::map<std::string, Stored> stored() {
    std::map<std::string, Stored> events;
    run([&]() -> asio::awaitable<void> {
      const auto in_default = rg::client::resources::events().in("default");
      const rg::client::ListOptions options;
      const json::value list = co_await client.list(in_default, options);
      for (const auto& item : list.at("items").as_array()) {
        if (item.at("involvedObject").at("name") != "web") continue;
        events[std::string(item.at("reason").as_string())] = {
            std::string(item.at("metadata").at("name").as_string()),
            item.at("count").to_number<std::int64_t>(),
            std::string(item.at("message").as_string())};
      }
    });
    return events;
  }
};

}  // namespace

TEST_CASE("Events reach the API server; a repeat raises the stored count") {
  Fixture f;
  rg::client::EventBroadcaster events(f.sink, f.config(), &f.metrics);
  events.start(f.io.get_executor());
  events.record(web(), "Normal", "ScaledUpForStrandedPods", "scaling 3 -> 4");
  f.clock += 1s;
  events.record(web(), "Normal", "ScaledUpForStrandedPods", "scaling 3 -> 4");
  f.clock += 1s;
  events.record(web(), "Normal", "ScaledUpForStrandedPods", "scaling 3 -> 4");
  events.record(web(), "Normal", "ScaledDownAfterRecovery", "scaling 4 -> 3");
  f.run([&] { return events.shut_down(); });
  const auto stored = f.stored();
  REQUIRE(stored.size() == 2);
  CHECK(stored.at("ScaledUpForStrandedPods").count == 3);
  CHECK(stored.at("ScaledUpForStrandedPods").message == "scaling 3 -> 4");
  CHECK(stored.at("ScaledDownAfterRecovery").count == 1);
  CHECK(f.metrics.written_total(rg::client::EventWrite::kCreate) == 2);
  CHECK(f.metrics.written_total(rg::client::EventWrite::kPatch) == 2);
}

TEST_CASE("a repeat of an Event that expired meanwhile is created again, with its count") {
  Fixture f;
  rg::client::EventBroadcaster events(f.sink, f.config(), &f.metrics);
  events.start(f.io.get_executor());
  events.record(web(), "Warning", "HorizontalPodAutoscalerFound", "left alone");
  f.run_until([&] { return f.metrics.written_total(rg::client::EventWrite::kCreate) == 1; });
  const std::string name = f.stored().at("HorizontalPodAutoscalerFound").name;
  f.run([&]() -> asio::awaitable<void> {
    const auto in_default = rg::client::resources::events().in("default");
    const rg::client::DeleteOptions options;
    co_await f.client.remove(in_default, name, options);
  });
  f.clock += 1s;
  events.record(web(), "Warning", "HorizontalPodAutoscalerFound", "left alone");
  f.run([&] { return events.shut_down(); });
  const auto stored = f.stored();
  REQUIRE(stored.contains("HorizontalPodAutoscalerFound"));
  CHECK(stored.at("HorizontalPodAutoscalerFound").name == name);
  CHECK(stored.at("HorizontalPodAutoscalerFound").count == 2);
  CHECK(f.metrics.written_total(rg::client::EventWrite::kCreate) == 2);
  CHECK(f.metrics.dropped_total(rg::client::EventDrop::kRejected) == 0);
}
