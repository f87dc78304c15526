// Unit tests of the simulated cluster's building blocks: pod-template-hash, rollout budgets,
// tolerations, the work loop.
#include <doctest/doctest.h>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/json.hpp>

#include <algorithm>

#include "sim/cluster/deployment_controller.hpp"
#include "sim/cluster/pod_template_hash.hpp"
#include "sim/cluster/views.hpp"
#include "sim/cluster/work_loop.hpp"

namespace json = boost::json;
using namespace rg::sim::cluster;

TEST_CASE("pod-template-hash is stable, order-blind, template-sensitive and safe-encoded") {
  auto a = json::parse(R"({"metadata":{"labels":{"app":"web"}},
                          "spec":{"containers":[{"name":"web","image":"web:1"}]}})")
               .as_object();
  auto b = json::parse(R"({"spec":{"containers":[{"image":"web:1","name":"web"}]},
                          "metadata":{"labels":{"app":"web"}}})")
               .as_object();
  auto c = json::parse(R"({"metadata":{"labels":{"app":"web"}},
                          "spec":{"containers":[{"name":"web","image":"web:2"}]}})")
               .as_object();
  const auto hash = pod_template_hash(a);
  CHECK(hash == pod_template_hash(b));
  CHECK(hash != pod_template_hash(c));
  CHECK(hash != pod_template_hash(a, 1));  // a collision count changes it
  CHECK(hash.size() >= 1);
  CHECK(hash.size() <= 10);
  CHECK(hash.find_first_not_of("bcdfghjklmnpqrstvwxz2456789") == std::string::npos);
  CHECK(safe_encode("0123456789") == "456789bcdf");  // byte % 27: 48 -> 21 = "4", 54 -> 0 = "b"
}

TEST_CASE("rollout budget resolves percentages like intstr: surge up, unavailable down") {
  DeploymentView d;
  d.replicas = 10;
  CHECK(rollout_budget(d).max_surge == 3);        // 25% of 10 = 2.5 -> 3
  CHECK(rollout_budget(d).max_unavailable == 2);  // -> 2
  d.max_surge = 0;
  d.max_unavailable = "0%";
  CHECK(rollout_budget(d).max_unavailable == 1);  // both zero: one may be unavailable
  d.strategy = "Recreate";
  CHECK(rollout_budget(d).max_surge == 0);
}

TEST_CASE("tolerations match taints like v1.Toleration.ToleratesTaint") {
  Taint unreachable{"node.kubernetes.io/unreachable", "", "NoExecute", ""};
  CHECK(tolerates({"node.kubernetes.io/unreachable", "Exists", "", "NoExecute", 300}, unreachable));
  CHECK(!tolerates({"node.kubernetes.io/not-ready", "Exists", "", "NoExecute", 300}, unreachable));
  CHECK(
      !tolerates({"node.kubernetes.io/unreachable", "Exists", "", "NoSchedule", {}}, unreachable));
  CHECK(tolerates({"", "Exists", "", "", {}}, unreachable));  // tolerates everything
  CHECK(tolerates({"k", "Equal", "v", "", {}}, {"k", "v", "NoSchedule", ""}));
  CHECK(!tolerates({"k", "Equal", "v", "", {}}, {"k", "w", "NoSchedule", ""}));
}

TEST_CASE("work loop: a key queued twice syncs once; timed keys run in order; cancel ends it") {
  boost::asio::io_context io;
  WorkLoop loop(io.get_executor(), "test");
  std::vector<std::string> synced;
  loop.add("a");
  loop.add("a");
  const auto now = WorkLoop::Clock::now();
  loop.add_at("late", now + std::chrono::milliseconds(30));
  loop.add_at("soon", now + std::chrono::milliseconds(10));
  loop.add_at("soon", now + std::chrono::milliseconds(60));  // the earlier time wins
  boost::asio::cancellation_signal stop;
  bool ended = false;
  auto sync = [&](const std::string& key) { synced.push_back(key); };
  boost::asio::co_spawn(
      io, loop.run(sync),
      boost::asio::bind_cancellation_slot(stop.slot(), [&](std::exception_ptr) { ended = true; }));
  const auto deadline = now + std::chrono::seconds(10);
  while (synced.size() < 3 && WorkLoop::Clock::now() < deadline)
    io.run_for(std::chrono::milliseconds(5));
  CHECK(synced == std::vector<std::string>{"a", "soon", "late"});
  stop.emit(boost::asio::cancellation_type::terminal);
  io.run_for(std::chrono::milliseconds(100));
  CHECK(ended);
}

TEST_CASE("the work loop yields the strand between slices of a long batch") {
  // Twenty keys of a millisecond's work each: the loop must let a handler posted behind it run
  // before it has synced them all (as the kubelets' Lease renewals must run beside a burst).
  boost::asio::io_context io;
  WorkLoop loop(io.get_executor(), "test");
  std::vector<std::string> ran;
  for (int i = 0; i < 20; ++i) loop.add("key-" + std::to_string(100 + i));
  auto sync = [&](const std::string& key) {
    ran.push_back(key);
    const auto until = WorkLoop::Clock::now() + std::chrono::milliseconds(1);
    while (WorkLoop::Clock::now() < until) {  // the work itself
    }
  };
  boost::asio::cancellation_signal stop;
  boost::asio::co_spawn(io, loop.run(sync),
                        boost::asio::bind_cancellation_slot(stop.slot(), boost::asio::detached));
  boost::asio::post(io, [&] { ran.push_back("other"); });
  const auto deadline = WorkLoop::Clock::now() + std::chrono::seconds(10);
  while (ran.size() < 21 && WorkLoop::Clock::now() < deadline)
    io.run_for(std::chrono::milliseconds(5));
  REQUIRE(ran.size() == 21);
  const auto other = std::find(ran.begin(), ran.end(), "other") - ran.begin();
  CHECK(other > 0);
  CHECK(other < 20);
  CHECK(std::count(ran.begin(), ran.end(), "key-119") == 1);  // every key once, the last too
  stop.emit(boost::asio::cancellation_type::terminal);
  io.run_for(std::chrono::milliseconds(100));
}
