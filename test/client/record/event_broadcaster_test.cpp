// The asynchronous event broadcaster: record() only queues; one writer creates and patches in
// record order; a full queue drops and counts; shutdown flushes within its bound; refusals are
// dropped and transport failures retried, each counted.
#include <doctest/doctest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/experimental/channel.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <deque>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "client/record/event_broadcaster.hpp"
#include "client/rest/api_error.hpp"
#include "test/client/record/counting_metrics.hpp"

namespace asio = boost::asio;
using namespace std::chrono_literals;
using rg::client::Event;
using rg::client::EventDrop;
using rg::client::EventWrite;

namespace {

using Bell = asio::experimental::channel<void(boost::system::error_code)>;

struct Write {
  std::string verb;  // "create" or "patch"
  Event event;
};

// Keeps what is written. `failures` are thrown by the next calls, one each; with `stuck`, calls
// wait until cancelled (an API server that never answers), ringing `entered` as they start.
struct FakeSink final : rg::client::EventSink {
  std::vector<Write> writes;
  std::deque<std::exception_ptr> failures;
  int calls = 0;
  bool stuck = false;
  Bell* entered = nullptr;

  asio::awaitable<void> create(const Event& e) override {
    co_await answer();
    writes.push_back({"create", e});
  }
  asio::awaitable<void> update_count(const Event& e) override {
    co_await answer();
    writes.push_back({"patch", e});
  }

 private:
  asio::awaitable<void> answer() {
    ++calls;
    if (entered != nullptr) entered->try_send(boost::system::error_code{});
    if (stuck) {
      asio::steady_timer never(co_await asio::this_coro::executor,
                               asio::steady_timer::time_point::max());
      co_await never.async_wait(asio::use_awaitable);  // throws operation_aborted when cancelled
    }
    if (!failures.empty()) {
      const std::exception_ptr failure = failures.front();
      failures.pop_front();
      if (failure) std::rethrow_exception(failure);
    }
  }
};

rg::client::ObjectReference deployment(std::string name) {
  rg::client::ObjectReference ref;
  ref.api_version = "apps/v1";
  ref.kind = "Deployment";
  ref.namespace_ = "shop";
  ref.name = std::move(name);
  ref.uid = "uid-" + ref.name;
  return ref;
}

std::exception_ptr api_error(int code) {
  return std::make_exception_ptr(rg::client::make_api_error(code, "", ""));
}

std::exception_ptr no_answer() {
  return std::make_exception_ptr(std::runtime_error("connection refused"));
}

// Runs `work` on `io` to completion (rethrowing its failure).
void run(asio::io_context& io, std::function<asio::awaitable<void>()> work) {
  bool finished = false;
  asio::co_spawn(io, work(), [&](std::exception_ptr e) {
    finished = true;
    if (e) std::rethrow_exception(e);
  });
  io.run();
  io.restart();
  REQUIRE(finished);
}

struct Fixture {
  asio::io_context io;
  rg::client::test::CountingMetrics metrics;
  FakeSink sink;
  std::chrono::system_clock::time_point clock{1'764'424'800s};  // 2025-11-29T14:00:00Z

  rg::client::EventBroadcasterConfig config() {
    rg::client::EventBroadcasterConfig c;
    c.component = "replica-guard";
    c.instance = "rg-0";
    c.retry_sleep = 1ms;
    c.clock = [this] { return clock; };
    return c;
  }
};

}  // namespace

TEST_CASE("the writer creates Events in the order they were recorded, with the recorder's fields") {
  Fixture f;
  rg::client::EventBroadcaster events(f.sink, f.config(), &f.metrics);
  events.record(deployment("web"), "Normal", "ScaledUpForStrandedPods", "scaling 3 -> 4");
  events.record(deployment("api"), "Warning", "HorizontalPodAutoscalerFound", "left alone");
  events.record(deployment("db"), "Normal", "DesiredReplicasRecorded", "3");
  CHECK(f.sink.writes.empty());  // record() only queued them
  CHECK(f.metrics.queue_depth() == 3);
  events.start(f.io.get_executor());
  run(f.io, [&] { return events.shut_down(); });
  REQUIRE(f.sink.writes.size() == 3);
  CHECK(f.sink.writes[0].event.involved_object.name == "web");
  CHECK(f.sink.writes[1].event.involved_object.name == "api");
  CHECK(f.sink.writes[2].event.involved_object.name == "db");
  const Event& first = f.sink.writes[0].event;
  CHECK(f.sink.writes[0].verb == "create");
  CHECK(first.metadata.namespace_ == "shop");
  CHECK(std::string_view(first.metadata.name).rfind("web.", 0) == 0);
  CHECK(first.involved_object.uid == "uid-web");
  CHECK(first.type == "Normal");
  CHECK(first.reason == "ScaledUpForStrandedPods");
  CHECK(first.message == "scaling 3 -> 4");
  CHECK(first.count == 1);
  CHECK(first.source.component == "replica-guard");
  CHECK(first.reporting_component == "replica-guard");
  CHECK(first.reporting_instance == "rg-0");
  CHECK(first.first_timestamp == "2025-11-29T14:00:00Z");
  CHECK(first.last_timestamp == "2025-11-29T14:00:00Z");
  CHECK(f.sink.writes[1].event.type == "Warning");
  CHECK(f.metrics.written_total(EventWrite::kCreate) == 3);
  CHECK(f.metrics.queue_depth() == 0);
}

TEST_CASE("a repeat patches the count of the first Event; one that expired is created again") {
  Fixture f;
  rg::client::EventBroadcaster events(f.sink, f.config(), &f.metrics);
  events.start(f.io.get_executor());
  events.record(deployment("web"), "Normal", "ScaledUpForStrandedPods", "scaling 3 -> 4");
  f.clock += 30s;
  events.record(deployment("web"), "Normal", "ScaledUpForStrandedPods", "scaling 3 -> 4");
  events.record(deployment("web"), "Normal", "ScaledDownAfterRecovery", "scaling 4 -> 3");
  SUBCASE("patched") {
    run(f.io, [&] { return events.shut_down(); });
    REQUIRE(f.sink.writes.size() == 3);
    CHECK(f.sink.writes[0].verb == "create");
    CHECK(f.sink.writes[1].verb == "patch");
    CHECK(f.sink.writes[2].verb == "create");
    const Event& bumped = f.sink.writes[1].event;
    CHECK(bumped.metadata.name == f.sink.writes[0].event.metadata.name);
    CHECK(bumped.count == 2);
    CHECK(bumped.first_timestamp == "2025-11-29T14:00:00Z");
    CHECK(bumped.last_timestamp == "2025-11-29T14:00:30Z");
    CHECK(f.metrics.written_total(EventWrite::kPatch) == 1);
  }
  SUBCASE("expired meanwhile: the patch finds nothing, so it is created with its count") {
    f.sink.failures = {nullptr, api_error(404)};
    run(f.io, [&] { return events.shut_down(); });
    REQUIRE(f.sink.writes.size() == 3);
    CHECK(f.sink.writes[1].verb == "create");
    CHECK(f.sink.writes[1].event.count == 2);
    CHECK(f.sink.writes[1].event.metadata.name == f.sink.writes[0].event.metadata.name);
  }
}

TEST_CASE("record() never waits for the API server: a full queue drops the overflow, counted") {
  Fixture f;
  Bell entered(f.io, 1);
  f.sink.stuck = true;
  f.sink.entered = &entered;
  auto config = f.config();
  config.queue_size = 5;
  config.flush_timeout = 10ms;
  rg::client::EventBroadcaster events(f.sink, config, &f.metrics);
  events.start(f.io.get_executor());
  run(f.io, [&]() -> asio::awaitable<void> {
    events.record(deployment("web-0"), "Normal", "Scaled", "first");
    co_await entered.async_receive(asio::use_awaitable);  // the writer waits for an answer
    // Every record() returns while the only write is stuck: 5 queue up, 5 overflow.
    for (int i = 1; i <= 10; ++i) {
      events.record(deployment("web-" + std::to_string(i)), "Normal", "Scaled", "more");
    }
    CHECK(f.metrics.queue_depth() == 5);
    CHECK(f.metrics.dropped_total(EventDrop::kQueueFull) == 5);
    // Shutdown cannot flush a stuck API server: after flush_timeout the write in flight is
    // cancelled and everything left is dropped, counted.
    co_await events.shut_down();
  });
  CHECK(f.sink.writes.empty());
  CHECK(f.sink.calls == 1);
  CHECK(f.metrics.dropped_total(EventDrop::kShutdown) == 6);
  CHECK(f.metrics.queue_depth() == 0);
  events.record(deployment("late"), "Normal", "Scaled", "after shutdown");
  CHECK(f.metrics.dropped_total(EventDrop::kShutdown) == 7);
}

TEST_CASE("shutdown writes every queued Event when the API server answers") {
  Fixture f;
  rg::client::EventBroadcaster events(f.sink, f.config(), &f.metrics);
  events.start(f.io.get_executor());
  for (int i = 0; i < 200; ++i) {
    events.record(deployment("web-" + std::to_string(i)), "Normal", "Scaled", "up");
  }
  run(f.io, [&] { return events.shut_down(); });
  CHECK(f.sink.writes.size() == 200);
  CHECK(f.sink.writes.back().event.involved_object.name == "web-199");
  CHECK(f.metrics.dropped_total(EventDrop::kShutdown) == 0);
  SUBCASE("a second shut_down returns at once") {
    run(f.io, [&] { return events.shut_down(); });
  }
}

TEST_CASE("without start(), shut_down drops what was queued, counted") {
  Fixture f;
  rg::client::EventBroadcaster events(f.sink, f.config(), &f.metrics);
  events.record(deployment("web"), "Normal", "Scaled", "up");
  events.record(deployment("api"), "Normal", "Scaled", "up");
  run(f.io, [&] { return events.shut_down(); });
  CHECK(f.sink.calls == 0);
  CHECK(f.metrics.dropped_total(EventDrop::kShutdown) == 2);
}

TEST_CASE("a refusal is dropped at once; no answer is retried up to max_tries") {
  Fixture f;
  Bell entered(f.io, 16);
  f.sink.entered = &entered;
  auto config = f.config();
  config.max_tries = 3;
  rg::client::EventBroadcaster events(f.sink, config, &f.metrics);
  events.start(f.io.get_executor());
  f.sink.failures = {api_error(403),                            // web: refused
                     no_answer(),    no_answer(), nullptr,      // api: the third try succeeds
                     no_answer(),    no_answer(), no_answer(),  // db: given up after three
                     nullptr};                                  // cache
  events.record(deployment("web"), "Normal", "Scaled", "up");
  events.record(deployment("api"), "Normal", "Scaled", "up");
  events.record(deployment("db"), "Normal", "Scaled", "up");
  events.record(deployment("cache"), "Normal", "Scaled", "up");
  run(f.io, [&]() -> asio::awaitable<void> {
    // Shut down only once the last Event's write began: a retry at shutdown is not made.
    for (int call = 0; call < 1 + 3 + 3 + 1; ++call) {
      co_await entered.async_receive(asio::use_awaitable);
    }
    co_await events.shut_down();
  });
  CHECK(f.sink.calls == 1 + 3 + 3 + 1);
  REQUIRE(f.sink.writes.size() == 2);
  CHECK(f.sink.writes[0].event.involved_object.name == "api");
  CHECK(f.sink.writes[1].event.involved_object.name == "cache");
  CHECK(f.metrics.dropped_total(EventDrop::kRejected) == 1);
  CHECK(f.metrics.dropped_total(EventDrop::kRetriesExhausted) == 1);
}

TEST_CASE("the spam filter and an unknown type drop Events, counted") {
  Fixture f;
  auto config = f.config();
  config.correlator.spam_burst = 2;
  rg::client::EventBroadcaster events(f.sink, config, &f.metrics);
  events.start(f.io.get_executor());
  for (int i = 0; i < 5; ++i)
    events.record(deployment("web"), "Normal", "Storm", std::to_string(i));
  events.record(deployment("web"), "Error", "Odd", "not a type");
  run(f.io, [&] { return events.shut_down(); });
  CHECK(f.sink.writes.size() == 2);
  CHECK(f.metrics.dropped_total(EventDrop::kSpamFilter) == 3);
  CHECK(f.metrics.dropped_total(EventDrop::kInvalid) == 1);
}
