// Event aggregation: repeats bump the count, distinct events are created, storms are cut off,
// and a failed write does not stop reconciling.
#include <doctest/doctest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>

#include <stdexcept>

#include "operator/event_recorder.hpp"

namespace asio = boost::asio;
using namespace std::chrono_literals;
using rg::client::Event;

namespace {

struct RecordingSink final : rg::op::EventSink {
  std::vector<Event> created;
  std::vector<Event> updated;
  bool failing = false;
  asio::awaitable<void> create(const Event& e) override {
    if (failing) throw std::runtime_error("events is forbidden");
    created.push_back(e);
    co_return;
  }
  asio::awaitable<void> update_count(const Event& e) override {
    if (failing) throw std::runtime_error("events is forbidden");
    updated.push_back(e);
    co_return;
  }
};

rg::client::ObjectReference web() {
  rg::client::ObjectReference ref;
  ref.api_version = "apps/v1";
  ref.kind = "Deployment";
  ref.namespace_ = "shop";
  ref.name = "web";
  ref.uid = "1234";
  return ref;
}

void run(asio::io_context& io, asio::awaitable<void> work) {
  asio::co_spawn(io, std::move(work), [](std::exception_ptr e) {
    if (e) std::rethrow_exception(e);
  });
  io.run();
  io.restart();
}

}  // namespace

TEST_CASE("a repeated event bumps the count of the first; a different one is new") {
  asio::io_context io;
  RecordingSink sink;
  auto clock = std::chrono::system_clock::time_point(1'764'424'800s);
  rg::op::EventRecorder recorder(sink, {.component = "replica-guard", .instance = "rg-0"},
                                 [&] { return clock; });
  run(io, recorder.record(web(), "Normal", "ScaledUpForStrandedPods", "scaling 3 -> 4"));
  clock += 30s;
  run(io, recorder.record(web(), "Normal", "ScaledUpForStrandedPods", "scaling 3 -> 4"));
  run(io, recorder.record(web(), "Normal", "ScaledDownAfterRecovery", "scaling 4 -> 3"));
  REQUIRE(sink.created.size() == 2);
  REQUIRE(sink.updated.size() == 1);
  const Event& first = sink.created[0];
  CHECK(first.metadata.namespace_ == "shop");
  CHECK(first.metadata.name.rfind("web.", 0) == 0);
  CHECK(first.involved_object.uid == "1234");
  CHECK(first.type == "Normal");
  CHECK(first.count == 1);
  CHECK(first.source.component == "replica-guard");
  CHECK(first.reporting_instance == "rg-0");
  CHECK(first.first_timestamp == "2025-11-29T14:00:00Z");
  const Event& bumped = sink.updated[0];
  CHECK(bumped.metadata.name == first.metadata.name);
  CHECK(bumped.count == 2);
  CHECK(bumped.first_timestamp == "2025-11-29T14:00:00Z");
  CHECK(bumped.last_timestamp == "2025-11-29T14:00:30Z");
}

TEST_CASE("the spam filter allows a burst per object, then one per refill period") {
  asio::io_context io;
  RecordingSink sink;
  auto clock = std::chrono::system_clock::time_point(1'764'424'800s);
  rg::op::EventRecorderConfig config;
  config.burst = 3;
  config.refill = 60s;
  rg::op::EventRecorder recorder(sink, config, [&] { return clock; });
  for (int i = 0; i < 10; ++i) {
    run(io, recorder.record(web(), "Warning", "Storm", "message " + std::to_string(i)));
  }
  CHECK(sink.created.size() == 3);
  CHECK(recorder.suppressed() == 7);
  clock += 60s;
  run(io, recorder.record(web(), "Warning", "Storm", "after refill"));
  CHECK(sink.created.size() == 4);
  auto other = web();
  other.name = "api";
  run(io, recorder.record(other, "Warning", "Storm", "another object has its own bucket"));
  CHECK(sink.created.size() == 5);
}

TEST_CASE("a failed write is logged and does not throw; the next attempt creates again") {
  asio::io_context io;
  RecordingSink sink;
  rg::op::EventRecorder recorder(sink, {});
  sink.failing = true;
  run(io, recorder.record(web(), "Normal", "X", "y"));
  sink.failing = false;
  run(io, recorder.record(web(), "Normal", "X", "y"));
  CHECK(sink.created.size() == 1);
  CHECK(sink.updated.empty());
}
