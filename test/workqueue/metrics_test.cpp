// Tests of workqueue/metrics.hpp: the client-go metric values after a scripted sequence on a
// FakeClock, and their Prometheus exposition.
#include "workqueue/metrics.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <map>
#include <stdexcept>
#include <string>

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>
#include <prometheus/text_serializer.h>
#include <boost/asio/io_context.hpp>

#include "test/workqueue/run_coroutine.hpp"
#include "workqueue/delaying_queue.hpp"

namespace asio = boost::asio;
using namespace std::chrono_literals;
using rg::workqueue::DelayingQueue;
using rg::workqueue::FakeClock;
using rg::workqueue::LatencyHistogram;
using rg::workqueue::MetricsProvider;
using rg::workqueue::QueueMetricsSnapshot;
using rg::workqueue::test::get_one;
using rg::workqueue::test::key_of;
using rg::workqueue::test::run;
using Delaying = DelayingQueue<std::string>;

namespace {

QueueMetricsSnapshot only(const MetricsProvider& provider) {
  auto all = provider.collect();
  REQUIRE(all.size() == 1);
  CHECK(all[0].first == "test");
  return all[0].second;
}

// Observations per bucket, keyed by the bucket's upper bound in nanoseconds (-1: +Inf).
std::map<std::int64_t, std::uint64_t> buckets(const LatencyHistogram& h) {
  std::map<std::int64_t, std::uint64_t> out;
  for (std::size_t i = 0; i < h.counts().size(); ++i) {
    if (h.counts()[i] == 0) continue;
    out[i < LatencyHistogram::kUpperBoundsNs.size() ? LatencyHistogram::kUpperBoundsNs[i] : -1] =
        h.counts()[i];
  }
  return out;
}

}  // namespace

TEST_CASE("metrics follow client-go through a scripted sequence") {
  asio::io_context io;
  auto clock = std::make_shared<FakeClock>();
  auto provider = std::make_shared<MetricsProvider>();
  auto q =
      Delaying::create(io.get_executor(), {.name = "test", .metrics = provider, .clock = clock});

  q->add("a");
  q->add("b");
  q->add("a");  // deduplicated: not an add
  auto s = only(*provider);
  CHECK(s.adds == 2);
  CHECK(s.depth == 2);
  CHECK(s.retries == 0);

  clock->step(1s);
  auto a = run(io, get_one(q));
  REQUIRE(key_of(a) == "a");  // waited 1s
  clock->step(2s);
  s = only(*provider);
  CHECK(s.depth == 1);
  CHECK(s.unfinished_work_seconds == doctest::Approx(2.0));
  CHECK(s.longest_running_processor_seconds == doctest::Approx(2.0));

  auto b = run(io, get_one(q));
  REQUIRE(key_of(b) == "b");  // waited 3s
  clock->step(1s);
  s = only(*provider);
  CHECK(s.depth == 0);
  CHECK(s.unfinished_work_seconds == doctest::Approx(3.0 + 1.0));
  CHECK(s.longest_running_processor_seconds == doctest::Approx(3.0));

  q->add("a");  // while processing: counted, queued after done
  s = only(*provider);
  CHECK(s.adds == 3);
  CHECK(s.depth == 1);

  a.done();  // worked 3s
  b.done();  // worked 1s
  clock->step(500ms);
  auto a_again = run(io, get_one(q));
  REQUIRE(key_of(a_again) == "a");  // waited 500ms since its re-add
  a_again.done();                   // worked 0s

  q->add_after("c", 0ms);
  q->add_after("d", 1h);
  s = only(*provider);
  CHECK(s.retries == 2);
  CHECK(s.adds == 4);  // "d" is not added until its delay passes
  CHECK(s.depth == 1);
  CHECK(s.unfinished_work_seconds == 0);
  CHECK(s.longest_running_processor_seconds == 0);

  CHECK(s.queue_duration.count() == 3);
  CHECK(s.queue_duration.sum_seconds() == doctest::Approx(1.0 + 3.0 + 0.5));
  CHECK(buckets(s.queue_duration) ==
        std::map<std::int64_t, std::uint64_t>{{1'000'000'000, 2}, {10'000'000'000, 1}});
  CHECK(s.work_duration.count() == 3);
  CHECK(s.work_duration.sum_seconds() == doctest::Approx(3.0 + 1.0 + 0.0));
  CHECK(buckets(s.work_duration) ==
        std::map<std::int64_t, std::uint64_t>{{10, 1}, {1'000'000'000, 1}, {10'000'000'000, 1}});
  q->shut_down();
}

TEST_CASE("the Prometheus exposition has client-go's names, types and label") {
  asio::io_context io;
  auto clock = std::make_shared<FakeClock>();
  auto provider = std::make_shared<MetricsProvider>();
  auto q = Delaying::create(io.get_executor(),
                            {.name = "deployments", .metrics = provider, .clock = clock});
  q->add("a");
  clock->step(2s);
  auto a = run(io, get_one(q));
  REQUIRE(key_of(a) == "a");
  clock->step(5s);
  q->add_after("a", 0ms);

  auto families = provider->collectable()->Collect();
  const std::string text = prometheus::TextSerializer().Serialize(families);
  INFO(text);
  for (const char* line : {
           "# TYPE workqueue_depth gauge",
           "workqueue_depth{name=\"deployments\"} 1",
           "# TYPE workqueue_adds_total counter",
           "workqueue_adds_total{name=\"deployments\"} 2",
           "# TYPE workqueue_queue_duration_seconds histogram",
           "workqueue_queue_duration_seconds_count{name=\"deployments\"} 1",
           "workqueue_queue_duration_seconds_sum{name=\"deployments\"} 2",
           "workqueue_queue_duration_seconds_bucket{name=\"deployments\",le=\"1\"} 0",
           "workqueue_queue_duration_seconds_bucket{name=\"deployments\",le=\"10\"} 1",
           "workqueue_queue_duration_seconds_bucket{name=\"deployments\",le=\"+Inf\"} 1",
           "# TYPE workqueue_work_duration_seconds histogram",
           "workqueue_work_duration_seconds_count{name=\"deployments\"} 0",
           "# TYPE workqueue_unfinished_work_seconds gauge",
           "workqueue_unfinished_work_seconds{name=\"deployments\"} 5",
           "# TYPE workqueue_longest_running_processor_seconds gauge",
           "workqueue_longest_running_processor_seconds{name=\"deployments\"} 5",
           "# TYPE workqueue_retries_total counter",
           "workqueue_retries_total{name=\"deployments\"} 1",
       }) {
    CHECK_MESSAGE(text.find(std::string(line) + "\n") != std::string::npos, line);
  }
  a.done();
  q->shut_down();
}

TEST_CASE("queue names must be given and unique while the queue lives") {
  asio::io_context io;
  auto provider = std::make_shared<MetricsProvider>();
  CHECK_THROWS_AS(Delaying::create(io.get_executor(), {.metrics = provider}),
                  std::invalid_argument);
  {
    auto q = Delaying::create(io.get_executor(), {.name = "x", .metrics = provider});
    CHECK_THROWS_AS(Delaying::create(io.get_executor(), {.name = "x", .metrics = provider}),
                    std::invalid_argument);
    CHECK(provider->collect().size() == 1);
  }
  CHECK(provider->collect().empty());  // unlisted when destroyed
  auto again = Delaying::create(io.get_executor(), {.name = "x", .metrics = provider});
  CHECK(provider->collect().size() == 1);
}

TEST_CASE("a queue may outlive its MetricsProvider") {
  // The queue's registration then holds the provider's state last, and releases it on its own.
  asio::io_context io;
  auto provider = std::make_shared<MetricsProvider>();
  auto q = Delaying::create(io.get_executor(), {.name = "orphan", .metrics = provider});
  q->add("a");
  provider.reset();
  q->add("b");
  CHECK(q->len() == 2);
  q.reset();  // must neither touch freed memory nor unlock a destroyed mutex (ASan, TSan)
}

TEST_CASE("the histogram puts a value on a bucket bound into that bucket") {
  LatencyHistogram h;
  h.observe(std::chrono::nanoseconds(10));
  h.observe(std::chrono::nanoseconds(11));
  h.observe(std::chrono::seconds(11));
  h.observe(std::chrono::nanoseconds(-5));  // a clock that went back counts as 0
  CHECK(buckets(h) == std::map<std::int64_t, std::uint64_t>{{10, 2}, {100, 1}, {-1, 1}});
  CHECK(h.count() == 4);
}
