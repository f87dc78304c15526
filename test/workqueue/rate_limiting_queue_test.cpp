// Tests of workqueue/rate_limiting_queue.hpp: add_rate_limited delays by the limiter, forget and
// num_requeues reach the limiter.
#include "workqueue/rate_limiting_queue.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <string>

#include <boost/asio/io_context.hpp>

#include "test/workqueue/run_coroutine.hpp"
#include "workqueue/item_fast_slow_rate_limiter.hpp"

namespace asio = boost::asio;
using namespace std::chrono_literals;
using rg::workqueue::ItemFastSlowRateLimiter;
using rg::workqueue::RateLimitingQueue;
using rg::workqueue::test::get_one;
using rg::workqueue::test::key_of;
using rg::workqueue::test::run;
using Limited = RateLimitingQueue<std::string>;

namespace {

// Takes one key and gives it back at once.
std::optional<std::string> get_and_done(asio::io_context& io, std::shared_ptr<Limited> q) {
  return key_of(run(io, get_one(std::move(q))));
}

}  // namespace

TEST_CASE("add_rate_limited delays by the limiter's answer and counts requeues") {
  asio::io_context io;
  auto limiter = std::make_shared<ItemFastSlowRateLimiter<std::string>>(1ms, 1h, 2);
  auto q = Limited::create(io.get_executor(), limiter);
  q->add_rate_limited("k");
  CHECK(q->len() == 0);
  CHECK(q->delayed() == 1);
  CHECK(q->num_requeues("k") == 1);
  CHECK(get_and_done(io, q) == std::optional<std::string>("k"));
  q->add_rate_limited("k");
  CHECK(get_and_done(io, q) == std::optional<std::string>("k"));
  CHECK(q->num_requeues("k") == 2);
  q->add_rate_limited("k");  // third failure: the slow delay
  CHECK(q->num_requeues("k") == 3);
  CHECK(q->delayed() == 1);
  q->forget("k");
  CHECK(q->num_requeues("k") == 0);
  q->add_rate_limited("k");  // fast again after forget: 1ms beats the pending hour
  CHECK(get_and_done(io, q) == std::optional<std::string>("k"));
  q->shut_down();
  io.restart();
  io.run();
}

TEST_CASE("the default limiter starts at 5ms per item") {
  asio::io_context io;
  auto q = Limited::create(io.get_executor());
  q->add_rate_limited("k");
  CHECK(q->num_requeues("k") == 1);
  CHECK(get_and_done(io, q) == std::optional<std::string>("k"));
  q->forget("k");
  CHECK(q->num_requeues("k") == 0);
}
