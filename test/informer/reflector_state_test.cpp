// The Reflector's state machine, transition by transition: paginated LIST, WATCH, watch-list,
// relists after 410, fallbacks, backoff and status reporting. No network: inputs in, actions out.
#include <doctest/doctest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "informer/reflector_state.hpp"

using namespace rg::informer::reflector;
using namespace std::chrono_literals;

namespace {

struct Machine {
  Clock::time_point now{};
  double random = 0.0;
  ReflectorStateMachine machine;

  explicit Machine(Config config = {})
      : machine(
            config, [this] { return now; }, [this] { return random; }) {}

  Actions step(Input input) { return machine.step(std::move(input)); }
  template <class P>
  const P& phase() const {
    REQUIRE_MESSAGE(std::holds_alternative<P>(machine.phase()),
                    "phase is " << phase_name(machine.phase()));
    return std::get<P>(machine.phase());
  }
};

template <class A>
const A& action(const Actions& actions, std::size_t i) {
  REQUIRE(i < actions.size());
  REQUIRE(std::holds_alternative<A>(actions[i]));
  return std::get<A>(actions[i]);
}

Object obj(int id) { return std::make_shared<const int>(id); }
int id_of(const Object& o) { return *std::static_pointer_cast<const int>(o); }

ListRequest list_request(std::string rv, std::string match, std::string cont = "") {
  return ListRequest{std::move(rv), std::move(match), 500, std::move(cont)};
}
WatchRequest watch_request(std::string rv, std::int64_t timeout = 300) {
  return WatchRequest{std::move(rv), "", true, false, timeout};
}

/// Drives a fresh machine through a paginated initial list to Watching at `rv`.
void to_watching(Machine& m, const std::string& rv) {
  m.step(Start{});
  m.step(ListPage{{obj(1)}, rv, ""});
  m.step(WatchOpened{});
  m.phase<Watching>();
}

Error error(ErrorKind kind, std::optional<Clock::duration> retry_after = std::nullopt) {
  return Error{kind, "boom", retry_after};
}

}  // namespace

TEST_CASE("Empty: Start issues the first page of a LIST at RV 0") {
  Machine m;
  m.phase<Empty>();
  auto out = m.step(Start{});
  REQUIRE(out.size() == 1);
  CHECK(action<IssueList>(out, 0).request == list_request("0", ""));
  CHECK(m.phase<InitPage>().continue_token.empty());
  CHECK(m.step(Start{}).empty());  // only from Empty
}

TEST_CASE("InitPage: pages accumulate, the last one replaces the store and starts the WATCH") {
  Machine m;
  m.step(Start{});
  auto out = m.step(ListPage{{obj(1), obj(2)}, "90", "token-1"});
  REQUIRE(out.size() == 1);
  CHECK(action<IssueList>(out, 0).request == list_request("", "", "token-1"));
  CHECK(m.phase<InitPage>().objects.size() == 2);
  CHECK(m.phase<InitPage>().continue_token == "token-1");

  out = m.step(ListPage{{obj(3)}, "100", ""});
  REQUIRE(out.size() == 2);
  const auto& replace = action<StoreReplace>(out, 0);
  CHECK(replace.resource_version == "100");
  REQUIRE(replace.objects.size() == 3);
  CHECK(id_of(replace.objects[2]) == 3);
  CHECK(action<IssueWatch>(out, 1).request == watch_request("100"));
  CHECK(m.phase<InitListed>().resource_version == "100");
  CHECK(m.machine.last_sync_resource_version() == "100");
}

TEST_CASE("Watching: events go to the store and move the resourceVersion on") {
  Machine m;
  to_watching(m, "100");
  auto out = m.step(WatchEvent{EventType::kAdded, obj(7), "101"});
  CHECK(id_of(action<StoreAdd>(out, 0).object) == 7);
  out = m.step(WatchEvent{EventType::kModified, obj(7), "102"});
  CHECK(id_of(action<StoreUpdate>(out, 0).object) == 7);
  out = m.step(WatchEvent{EventType::kDeleted, obj(7), "103"});
  CHECK(id_of(action<StoreDelete>(out, 0).object) == 7);
  out = m.step(WatchEvent{EventType::kBookmark, nullptr, "150"});
  CHECK(out.empty());
  CHECK(m.phase<Watching>().resource_version == "150");
  CHECK(m.machine.last_sync_resource_version() == "150");
}

TEST_CASE("InitListed: the first event opens the watch implicitly") {
  Machine m;
  m.step(Start{});
  m.step(ListPage{{}, "100", ""});
  auto out = m.step(WatchEvent{EventType::kAdded, obj(1), "101"});
  CHECK(std::holds_alternative<StoreAdd>(out.at(0)));
  CHECK(m.phase<Watching>().resource_version == "101");
}

TEST_CASE("a stream that ends normally is re-watched at once from the last RV") {
  Machine m;
  to_watching(m, "100");
  m.step(WatchEvent{EventType::kModified, obj(1), "120"});
  m.random = 0.5;  // timeoutSeconds is randomised in [300, 600)
  auto out = m.step(StreamEnded{});
  REQUIRE(out.size() == 1);
  CHECK(action<IssueWatch>(out, 0).request == watch_request("120", 450));
  CHECK(m.phase<InitListed>().resource_version == "120");
  m.random = 0.999;
  m.step(WatchOpened{});
  CHECK(action<IssueWatch>(m.step(StreamEnded{}), 0).request.timeout_seconds == 599);
}

TEST_CASE("410 while watching: relist from the last RV, then consistently if that is gone too") {
  Machine m;
  to_watching(m, "100");
  m.step(WatchEvent{EventType::kModified, obj(1), "130"});
  auto out = m.step(error(ErrorKind::kGone));
  REQUIRE(out.size() == 1);
  CHECK(action<IssueList>(out, 0).request == list_request("130", "NotOlderThan"));

  out = m.step(error(ErrorKind::kGone));
  REQUIRE(out.size() == 1);
  CHECK(action<IssueList>(out, 0).request == list_request("", ""));  // consistent read
  CHECK(m.phase<InitPage>().resource_version.empty());

  m.step(ListPage{{}, "500", ""});
  m.step(WatchOpened{});
  out = m.step(error(ErrorKind::kGone));  // the flag was cleared by the successful list
  CHECK(action<IssueList>(out, 0).request == list_request("500", "NotOlderThan"));
}

TEST_CASE("410 on a WATCH not yet opened also relists from the last RV") {
  Machine m;
  m.step(Start{});
  m.step(ListPage{{}, "100", ""});
  auto out = m.step(error(ErrorKind::kGone));
  CHECK(action<IssueList>(out, 0).request == list_request("100", "NotOlderThan"));
}

TEST_CASE("an expired continue token restarts the list as a consistent read") {
  Machine m;
  m.step(Start{});
  m.step(ListPage{{obj(1)}, "90", "token-1"});
  auto out = m.step(error(ErrorKind::kGone));
  REQUIRE(out.size() == 1);
  CHECK(action<IssueList>(out, 0).request == list_request("", ""));
  CHECK(m.phase<InitPage>().objects.empty());  // the partial pages are dropped
}

TEST_CASE("410 on a consistent first page backs off instead of spinning") {
  Machine m;
  to_watching(m, "100");
  m.step(error(ErrorKind::kGone));
  m.step(error(ErrorKind::kGone));  // now listing consistently
  auto out = m.step(error(ErrorKind::kGone));
  CHECK(action<Wait>(out, 1).delay == 800ms);
  CHECK(m.phase<Backoff>().then == Resume::kRelist);
}

TEST_CASE("transport errors back off 800 ms doubling, then resume the WATCH from the last RV") {
  Machine m;
  to_watching(m, "100");
  auto out = m.step(error(ErrorKind::kTransport));
  REQUIRE(out.size() == 2);
  CHECK(action<ReportStatus>(out, 0).health == Health::kFailing);
  CHECK(action<ReportStatus>(out, 0).log);
  CHECK(action<Wait>(out, 1).delay == 800ms);
  CHECK(m.phase<Backoff>().then == Resume::kWatch);
  CHECK(m.machine.health() == Health::kFailing);

  out = m.step(TimerFired{});
  CHECK(action<IssueWatch>(out, 0).request == watch_request("100"));
  m.phase<InitListed>();

  out = m.step(error(ErrorKind::kServerError));  // the retry fails too
  CHECK(action<Wait>(out, 1).delay == 1600ms);

  m.step(TimerFired{});
  out = m.step(WatchOpened{});
  REQUIRE(out.size() == 1);
  CHECK(action<ReportStatus>(out, 0).health == Health::kHealthy);
  CHECK(m.machine.health() == Health::kHealthy);
}

TEST_CASE("the backoff resets after two minutes without errors") {
  Machine m;
  to_watching(m, "100");
  m.step(error(ErrorKind::kTransport));
  m.step(TimerFired{});
  m.step(WatchOpened{});
  m.now += 2min + 1s;
  auto out = m.step(error(ErrorKind::kTransport));
  CHECK(action<Wait>(out, 1).delay == 800ms);
}

TEST_CASE("failed lists back off and then relist") {
  Machine m;
  m.step(Start{});
  auto out = m.step(error(ErrorKind::kServerError));
  CHECK(action<Wait>(out, 1).delay == 800ms);
  CHECK(m.phase<Backoff>().then == Resume::kRelist);
  out = m.step(TimerFired{});
  CHECK(action<IssueList>(out, 0).request == list_request("0", ""));
}

TEST_CASE("403 reports forbidden, logged once per backoff period") {
  Machine m;
  m.step(Start{});
  auto out = m.step(error(ErrorKind::kForbidden));
  CHECK(action<ReportStatus>(out, 0).health == Health::kForbidden);
  CHECK(action<ReportStatus>(out, 0).log);

  m.now += 10s;
  m.step(TimerFired{});
  out = m.step(error(ErrorKind::kForbidden));
  CHECK(action<ReportStatus>(out, 0).health == Health::kForbidden);
  CHECK_FALSE(action<ReportStatus>(out, 0).log);

  m.now += 25s;  // 35 s since it was logged: log again
  m.step(TimerFired{});
  out = m.step(error(ErrorKind::kForbidden));
  CHECK(action<ReportStatus>(out, 0).log);

  m.step(TimerFired{});
  out = m.step(error(ErrorKind::kUnauthorized));  // a different problem is logged at once
  CHECK(action<ReportStatus>(out, 0).health == Health::kUnauthorized);
  CHECK(action<ReportStatus>(out, 0).log);

  m.step(TimerFired{});
  out = m.step(ListPage{{}, "10", ""});
  CHECK(action<ReportStatus>(out, 1).health == Health::kHealthy);
}

TEST_CASE("429 waits for Retry-After when given, else backs off") {
  Machine m;
  to_watching(m, "100");
  auto out = m.step(error(ErrorKind::kTooManyRequests, 7s));
  CHECK(action<ReportStatus>(out, 0).health == Health::kThrottled);
  CHECK(action<Wait>(out, 1).delay == 7s);
  m.step(TimerFired{});
  out = m.step(error(ErrorKind::kTooManyRequests));
  CHECK(action<Wait>(out, 1).delay == 800ms);
}

TEST_CASE("a stream closing before the WATCH opened backs off") {
  Machine m;
  m.step(Start{});
  m.step(ListPage{{}, "100", ""});
  auto out = m.step(StreamEnded{});
  CHECK(action<ReportStatus>(out, 0).health == Health::kFailing);
  CHECK(m.phase<Backoff>().then == Resume::kWatch);
}

TEST_CASE("watch-list: initial events until the initial-events-end bookmark, then Watching") {
  Machine m(Config{.use_watch_list = true});
  auto out = m.step(Start{});
  REQUIRE(out.size() == 2);
  CHECK(action<IssueWatch>(out, 0).request == WatchRequest{"", "NotOlderThan", true, true, 300});
  CHECK(action<Wait>(out, 1).delay == 60s);
  m.phase<InitialWatch>();

  CHECK(m.step(WatchOpened{}).empty());
  CHECK(m.step(WatchEvent{EventType::kAdded, obj(1), "10"}).empty());
  CHECK(m.step(WatchEvent{EventType::kAdded, obj(2), "11"}).empty());
  CHECK(m.step(WatchEvent{EventType::kBookmark, nullptr, "12"}).empty());  // not the end yet
  out = m.step(WatchEvent{EventType::kBookmark, nullptr, "20", true});
  REQUIRE(out.size() == 2);
  CHECK(std::holds_alternative<CancelTimer>(out[0]));
  CHECK(action<StoreReplace>(out, 1).objects.size() == 2);
  CHECK(action<StoreReplace>(out, 1).resource_version == "20");
  CHECK(m.phase<Watching>().resource_version == "20");

  // Later events on the same stream are ordinary watch events.
  out = m.step(WatchEvent{EventType::kAdded, obj(3), "21"});
  CHECK(std::holds_alternative<StoreAdd>(out.at(0)));

  // A relist after 410 uses watch-list again, from the last RV.
  out = m.step(error(ErrorKind::kGone));
  CHECK(action<IssueWatch>(out, 0).request == WatchRequest{"21", "NotOlderThan", true, true, 300});
}

TEST_CASE("watch-list refused by the server: paginated LIST, and watch-list stays off") {
  Machine m(Config{.use_watch_list = true});
  m.step(Start{});
  auto out = m.step(error(ErrorKind::kWatchListRefused));
  REQUIRE(out.size() == 2);
  CHECK(std::holds_alternative<CancelTimer>(out[0]));
  CHECK(action<IssueList>(out, 1).request == list_request("0", ""));
  CHECK_FALSE(m.machine.watch_list_enabled());
  m.step(ListPage{{}, "100", ""});
  m.step(WatchOpened{});
  out = m.step(error(ErrorKind::kGone));
  CHECK(action<IssueList>(out, 0).request == list_request("100", "NotOlderThan"));
}

TEST_CASE("watch-list without the end bookmark in time: LIST fallback for this round") {
  Machine m(Config{.use_watch_list = true, .initial_events_timeout = 60s});
  m.step(Start{});
  m.step(WatchEvent{EventType::kAdded, obj(1), "10"});
  m.now += 30s;
  CHECK(m.step(TimerFired{}).empty());  // a timer before the deadline is stale
  m.now += 30s;
  auto out = m.step(TimerFired{});
  REQUIRE(out.size() == 2);
  CHECK(std::holds_alternative<CloseStream>(out[0]));
  CHECK(action<IssueList>(out, 1).request == list_request("0", ""));
  CHECK(m.machine.watch_list_enabled());
}

TEST_CASE("watch-list stream ending before the end bookmark: LIST fallback") {
  Machine m(Config{.use_watch_list = true});
  m.step(Start{});
  auto out = m.step(StreamEnded{});
  CHECK(std::holds_alternative<CancelTimer>(out.at(0)));
  CHECK(action<IssueList>(out, 1).request == list_request("0", ""));
}

TEST_CASE("watch-list failures back off and retry the watch-list") {
  Machine m(Config{.use_watch_list = true});
  m.step(Start{});
  auto out = m.step(error(ErrorKind::kTransport));
  CHECK(m.phase<Backoff>().then == Resume::kRelist);
  out = m.step(TimerFired{});
  CHECK(action<IssueWatch>(out, 0).request.send_initial_events);
}

TEST_CASE("inputs that do not belong to the phase are ignored") {
  Machine m;
  to_watching(m, "100");
  CHECK(m.step(ListPage{{obj(1)}, "1", ""}).empty());
  CHECK(m.step(TimerFired{}).empty());
  CHECK(m.step(WatchOpened{}).empty());
  CHECK(m.phase<Watching>().resource_version == "100");

  m.step(error(ErrorKind::kTransport));
  CHECK(m.step(WatchEvent{EventType::kAdded, obj(1), "101"}).empty());  // late, from the old stream
  CHECK(m.step(StreamEnded{}).empty());
  CHECK(m.step(error(ErrorKind::kTransport)).empty());
  m.phase<Backoff>();
}

TEST_CASE("nonsense configuration is refused") {
  CHECK_THROWS_AS(Machine(Config{.page_size = 0}), std::invalid_argument);
  CHECK_THROWS_AS(Machine(Config{.min_watch_timeout = 0s}), std::invalid_argument);
}
