// Lease-based leader election against an in-memory Lease: one leader at a time, take-over after
// the leader dies, stepping down when renewals fail, release on shutdown. Time bounds are loose.
#include <doctest/doctest.h>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <sstream>
#include <stdexcept>
#include <utility>

#include "client/leaderelection/leader_election.hpp"

namespace asio = boost::asio;
using namespace std::chrono_literals;
using rg::client::LeaderElectionConfig;
using rg::client::LeaderElector;
using rg::client::LeaseRecord;

namespace {

// One Lease in memory, with resourceVersion checks like the API server's.
class MemoryLease final : public rg::client::LeaseLock {
 public:
  std::optional<LeaseRecord> stored;
  bool failing = false;                 // every call fails, as when the API server is unreachable
  bool created_after_next_get = false;  // another candidate creates it right after a read
  int version = 0;

  asio::awaitable<std::optional<LeaseRecord>> get() override {
    if (failing) throw std::runtime_error("connection refused");
    if (std::exchange(created_after_next_get, false)) co_return std::nullopt;
    co_return stored;
  }
  asio::awaitable<void> create(const LeaseRecord& record) override {
    if (failing) throw std::runtime_error("connection refused");
    if (stored) throw rg::client::LeaseAlreadyExists("already exists");
    stored = record;
    stored->resource_version = std::to_string(++version);
    co_return;
  }
  asio::awaitable<void> update(const LeaseRecord& record) override {
    if (failing) throw std::runtime_error("connection refused");
    if (!stored || stored->resource_version != record.resource_version)
      throw rg::client::LeaseConflict("conflict");
    stored = record;
    stored->resource_version = std::to_string(++version);
    co_return;
  }
  std::string describe() const override { return "test/lease"; }
};

LeaderElectionConfig fast(std::string identity, bool release = true) {
  LeaderElectionConfig config;
  config.identity = std::move(identity);
  config.lease_duration = 1000ms;  // whole seconds: the Lease stores seconds
  config.renew_deadline = 400ms;
  config.retry_period = 50ms;
  config.release_on_cancel = release;
  return config;
}

asio::awaitable<void> sleep_for(std::chrono::milliseconds d) {
  asio::steady_timer timer(co_await asio::this_coro::executor, d);
  co_await timer.async_wait(asio::use_awaitable);
}

struct Candidate {
  LeaderElector elector;
  asio::cancellation_signal stop;
  bool leading = false;
  bool finished = false;
  int terms = 0;

  Candidate(rg::client::LeaseLock& lock, LeaderElectionConfig config)
      : elector(lock, std::move(config)) {}

  void start(asio::io_context& io) {
    auto lead = [this]() -> asio::awaitable<void> {
      leading = true;
      ++terms;
      try {
        for (;;) co_await sleep_for(10ms);
      } catch (...) {
        leading = false;
        throw;
      }
    };
    asio::co_spawn(io, elector.run(lead),
                   asio::bind_cancellation_slot(stop.slot(), [this](std::exception_ptr e) {
                     finished = true;
                     if (e) std::rethrow_exception(e);
                   }));
  }
};

// Runs a test's scenario and everything the candidates started until all of it has ended; a
// failure of the scenario fails the test.
template <class Scenario>
void run_scenario(asio::io_context& io, Scenario& scenario) {
  asio::co_spawn(io, scenario, [](std::exception_ptr e) {
    if (e) std::rethrow_exception(e);
  });
  io.run();
}

}  // namespace

TEST_CASE("invalid timings are refused") {
  MemoryLease lease;
  auto config = fast("a");
  config.renew_deadline = config.lease_duration;
  CHECK_THROWS_WITH_AS(LeaderElector(lease, config), doctest::Contains("lease-duration"),
                       std::invalid_argument);
  config = fast("a");
  config.retry_period = config.renew_deadline;
  CHECK_THROWS_AS(LeaderElector(lease, config), std::invalid_argument);
}

TEST_CASE("one of two candidates leads; the other takes over after the leader dies") {
  asio::io_context io;
  MemoryLease lease;
  Candidate a(lease, fast("a", /*release=*/false));
  Candidate b(lease, fast("b", /*release=*/false));
  a.start(io);
  auto scenario = [&]() -> asio::awaitable<void> {
    co_await sleep_for(200ms);
    CHECK(a.elector.is_leader());
    b.start(io);
    // For several renewals, exactly one leads.
    for (int i = 0; i < 20; ++i) {
      co_await sleep_for(25ms);
      CHECK(a.leading != b.leading);
      CHECK_FALSE(b.elector.is_leader());
    }
    CHECK(lease.stored->holder_identity == "a");
    // Kill a without releasing: b must wait for the lease to expire, then lead.
    const auto killed = std::chrono::steady_clock::now();
    a.stop.emit(asio::cancellation_type::terminal);
    while (!b.elector.is_leader()) co_await sleep_for(10ms);
    const auto took = std::chrono::steady_clock::now() - killed;
    CHECK(took >= 900ms);  // not before the lease expired
    CHECK(took < 5s);      // lease duration + retry period + a generous margin
    CHECK(lease.stored->holder_identity == "b");
    CHECK(lease.stored->lease_transitions == 1);
    CHECK_FALSE(a.elector.is_leader());
    b.stop.emit(asio::cancellation_type::terminal);
  };
  run_scenario(io, scenario);
  CHECK(a.finished);
  CHECK(b.finished);
  CHECK_FALSE(a.leading);
  CHECK_FALSE(b.leading);
}

TEST_CASE(
    "a leader that cannot renew stops leading within the renew deadline, then campaigns again") {
  asio::io_context io;
  MemoryLease lease;
  Candidate a(lease, fast("a"));
  a.start(io);
  auto scenario = [&]() -> asio::awaitable<void> {
    while (!a.leading) co_await sleep_for(10ms);
    lease.failing = true;
    const auto cut = std::chrono::steady_clock::now();
    while (a.elector.is_leader()) co_await sleep_for(5ms);
    CHECK(std::chrono::steady_clock::now() - cut < 2s);
    while (a.leading) co_await sleep_for(5ms);  // the leading work was cancelled
    lease.failing = false;
    while (!a.leading) co_await sleep_for(10ms);  // and resumes once the lease is reachable
    CHECK(a.terms == 2);
    a.stop.emit(asio::cancellation_type::terminal);
  };
  run_scenario(io, scenario);
  CHECK(a.finished);
}

TEST_CASE("a graceful stop releases the lease so a standby need not wait for it to expire") {
  asio::io_context io;
  MemoryLease lease;
  Candidate a(lease, fast("a"));
  a.start(io);
  auto scenario = [&]() -> asio::awaitable<void> {
    while (!a.leading) co_await sleep_for(10ms);
    a.stop.emit(asio::cancellation_type::terminal);
    co_return;
  };
  run_scenario(io, scenario);
  CHECK(a.finished);
  REQUIRE(lease.stored);
  CHECK(lease.stored->holder_identity.empty());
  CHECK(lease.stored->lease_duration_seconds == 1);
}

TEST_CASE("losing the race to create the lease is no warning: the candidate reads the winner's") {
  std::ostringstream logged;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(logged);
  sink->set_pattern("%l %v");
  const auto previous = spdlog::default_logger();
  auto capture = std::make_shared<spdlog::logger>("test", sink);
  capture->set_level(spdlog::level::debug);
  spdlog::set_default_logger(capture);

  asio::io_context io;
  MemoryLease lease;
  Candidate a(lease, fast("a"));
  Candidate b(lease, fast("b"));
  a.start(io);
  auto scenario = [&]() -> asio::awaitable<void> {
    while (!a.leading) co_await sleep_for(10ms);
    // b reads no Lease, then a's Lease is there when b creates its own.
    lease.created_after_next_get = true;
    b.start(io);
    while (b.elector.observed_leader().empty()) co_await sleep_for(5ms);
    CHECK(b.elector.observed_leader() == "a");
    CHECK_FALSE(b.leading);
    b.stop.emit(asio::cancellation_type::terminal);
    a.stop.emit(asio::cancellation_type::terminal);
  };
  run_scenario(io, scenario);
  spdlog::set_default_logger(previous);

  CHECK_FALSE(lease.created_after_next_get);  // the race did happen
  CHECK(logged.str().find("debug leader election: lease test/lease was just created by another "
                          "candidate") != std::string::npos);
  CHECK_MESSAGE(logged.str().find("warning") == std::string::npos, logged.str());
}
