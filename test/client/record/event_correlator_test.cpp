// The event correlator as client-go's: exact repeats become counts on the first Event, ten
// distinct messages of one reason are combined, and the spam filter caps Events per object.
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>

#include "client/model/time.hpp"
#include "client/record/event_correlator.hpp"

using namespace std::chrono_literals;
using rg::client::Event;
using rg::client::EventCorrelator;

namespace {

const auto kStart = std::chrono::system_clock::time_point(1'764'424'800s);  // 2025-11-29 14:00

// An Event as the recorder makes it: count 1, a fresh name.
Event made(std::string name, std::string reason, std::string message,
           std::chrono::system_clock::time_point at) {
  Event e;
  e.involved_object.api_version = "apps/v1";
  e.involved_object.kind = "Deployment";
  e.involved_object.namespace_ = "shop";
  e.involved_object.name = std::move(name);
  e.involved_object.uid = "uid-" + e.involved_object.name;
  e.metadata.namespace_ = "shop";
  e.metadata.name = rg::client::event_name(e.involved_object.name, at);
  e.type = "Normal";
  e.reason = std::move(reason);
  e.message = std::move(message);
  e.source.component = "replica-guard";
  e.first_timestamp = e.last_timestamp = rg::client::format_time(at);
  e.count = 1;
  return e;
}

}  // namespace

TEST_CASE("a repeat takes the first Event's name, firstTimestamp and count + 1") {
  EventCorrelator correlator;
  const auto first = correlator.correlate(made("web", "ScaledUp", "3 -> 4", kStart), kStart);
  REQUIRE(first);
  CHECK(first->count == 1);
  CHECK(first->metadata.name == rg::client::event_name("web", kStart));
  const auto later = kStart + 30s;
  const auto repeat = correlator.correlate(made("web", "ScaledUp", "3 -> 4", later), later);
  REQUIRE(repeat);
  CHECK(repeat->count == 2);
  CHECK(repeat->metadata.name == first->metadata.name);
  CHECK(repeat->first_timestamp == "2025-11-29T14:00:00Z");
  CHECK(repeat->last_timestamp == "2025-11-29T14:00:30Z");
  SUBCASE("another message, reason or object is a new Event") {
    for (const Event& other :
         {made("web", "ScaledUp", "4 -> 5", later), made("web", "ScaledDown", "3 -> 4", later),
          made("api", "ScaledUp", "3 -> 4", later)}) {
      const auto result = correlator.correlate(other, later);
      REQUIRE(result);
      CHECK(result->count == 1);
      CHECK(result->metadata.name != first->metadata.name);
    }
  }
}

TEST_CASE("the tenth distinct message of one reason within ten minutes is combined") {
  EventCorrelator correlator;
  auto at = kStart;
  for (int i = 1; i <= 9; ++i) {
    const auto e =
        correlator.correlate(made("web", "Stranded", "pod " + std::to_string(i), at), at);
    REQUIRE(e);
    CHECK(e->message == "pod " + std::to_string(i));
    at += 1min;
  }
  const auto tenth = correlator.correlate(made("web", "Stranded", "pod 10", at), at);
  REQUIRE(tenth);
  CHECK(tenth->message == "(combined from similar events): pod 10");
  CHECK(tenth->count == 1);
  at += 1min;
  const auto eleventh = correlator.correlate(made("web", "Stranded", "pod 11", at), at);
  REQUIRE(eleventh);
  CHECK(eleventh->message == "(combined from similar events): pod 11");
  CHECK(eleventh->count == 2);
  CHECK(eleventh->metadata.name == tenth->metadata.name);
  SUBCASE("after ten quiet minutes, similar Events start afresh") {
    at += 11min;
    const auto fresh = correlator.correlate(made("web", "Stranded", "pod 12", at), at);
    REQUIRE(fresh);
    CHECK(fresh->message == "pod 12");
    CHECK(fresh->count == 1);
  }
}

TEST_CASE("the spam filter allows a burst per object, then one per refill period") {
  EventCorrelator correlator({.cache_size = 4096,
                              .spam_burst = 3,
                              .spam_refill = 60s,
                              .aggregate_max_events = 100,
                              .aggregate_interval = 600s});
  int allowed = 0;
  for (int i = 0; i < 10; ++i) {
    allowed +=
        correlator.correlate(made("web", "Storm", std::to_string(i), kStart), kStart) ? 1 : 0;
  }
  CHECK(allowed == 3);
  CHECK_FALSE(correlator.correlate(made("web", "Storm", "x", kStart + 30s), kStart + 30s));
  CHECK(correlator.correlate(made("web", "Storm", "y", kStart + 90s), kStart + 90s));
  CHECK(correlator.correlate(made("api", "Storm", "z", kStart), kStart));  // a bucket of its own
  auto warning = made("web", "Storm", "w", kStart + 30s);
  warning.type = "Warning";  // getSpamKey includes the type: another bucket
  CHECK(correlator.correlate(warning, kStart + 30s));
  SUBCASE("a held-back repeat still counts: the next one written carries the true count") {
    const auto later = kStart + 10min;
    const auto e = correlator.correlate(made("web", "Storm", "x", later), later);
    REQUIRE(e);
    CHECK(e->count == 2);
  }
}

TEST_CASE("a spam filter without a refill period is refused, not divided by") {
  CHECK_THROWS_AS(EventCorrelator({.spam_refill = 0s}), std::invalid_argument);
  CHECK_THROWS_AS(EventCorrelator({.spam_refill = -1s}), std::invalid_argument);
}

TEST_CASE("the caches forget the least recently used entry beyond their size") {
  EventCorrelator correlator({.cache_size = 2,
                              .spam_burst = 25,
                              .spam_refill = 300s,
                              .aggregate_max_events = 10,
                              .aggregate_interval = 600s});
  const auto at = kStart;
  REQUIRE(correlator.correlate(made("a", "R", "m", at), at));
  REQUIRE(correlator.correlate(made("b", "R", "m", at), at));
  CHECK(correlator.correlate(made("a", "R", "m", at), at)->count == 2);  // a used again
  REQUIRE(correlator.correlate(made("c", "R", "m", at), at));            // evicts b
  CHECK(correlator.correlate(made("a", "R", "m", at), at)->count == 3);
  CHECK(correlator.correlate(made("b", "R", "m", at), at)->count == 1);  // forgotten: new
}
