// A kubelet that dies without any API write (Cluster::stop_kubelet and POST
// /sim/kubelets/NODE/stop), what /sim/kubelets reports about each kubelet, and its return.
#include <doctest/doctest.h>

#include <boost/json.hpp>

#include <chrono>

#include "cluster_fixture.hpp"
#include "sim/cluster/kubelet_admin.hpp"
#include "sim/server.hpp"
#include "test/sim/http_client.hpp"

namespace json = boost::json;
using rg::sim::testing::ClusterFixture;
using rg::sim::testing::condition_status;
using rg::sim::testing::fast_options;

namespace {

const rg::sim::KubeletState& state_of(const std::vector<rg::sim::KubeletState>& states,
                                      const std::string& node) {
  for (const auto& state : states)
    if (state.node == node) return state;
  FAIL("no kubelet for " << node);
  return states.front();
}

}  // namespace

TEST_CASE("stop_kubelet: no API write, the Lease stops, the node goes Unknown; start: back") {
  ClusterFixture f;
  REQUIRE(f.run_until([&] { return !renew_time(f, "node-1").empty(); }));
  const auto rv = f.store.get(f.type("", "nodes"), "", "node-1")->resource_version;
  const auto before = std::chrono::steady_clock::now();

  const auto stopped = f.cluster.stop_kubelet("node-1");
  CHECK_FALSE(stopped.alive);
  REQUIRE(stopped.stopped_at);
  CHECK(stopped.stopped_at->monotonic >= before);
  CHECK(stopped.last_renewal);
  // A death changes no API object.
  CHECK(f.store.get(f.type("", "nodes"), "", "node-1")->resource_version == rv);
  CHECK_THROWS_AS(f.cluster.stop_kubelet("node-9"), std::out_of_range);

  REQUIRE(f.run_until(
      [&] { return condition_status(f.get("", "nodes", "", "node-1"), "Ready") == "Unknown"; }));
  const auto states = f.cluster.kubelets();
  REQUIRE(states.size() == 3);
  const auto& dead = state_of(states, "node-1");
  CHECK_FALSE(dead.alive);
  // No renewal after the death (the last one was written before stop_kubelet returned).
  REQUIRE(dead.last_renewal);
  CHECK(dead.last_renewal->monotonic <= dead.stopped_at->monotonic);
  CHECK(dead.last_renew_time == renew_time(f, "node-1"));
  CHECK(state_of(states, "node-2").alive);
  CHECK(state_of(states, "node-2").last_renewal->monotonic > dead.stopped_at->monotonic);

  const auto started = f.cluster.start_kubelet("node-1");
  CHECK(started.alive);
  CHECK_FALSE(started.stopped_at);
  REQUIRE(f.run_until(
      [&] { return condition_status(f.get("", "nodes", "", "node-1"), "Ready") == "True"; }));
  // The Lease renews too (its own loop: before or after the status post).
  CHECK(f.run_until([&] { return renew_time(f, "node-1") != dead.last_renew_time; }));
}

TEST_CASE("/sim/kubelets: list, stop, delay and start over HTTP") {
  rg::sim::Server server;
  ClusterFixture f(server.store(), server.registry());
  server.route_admin("/sim/kubelets", rg::sim::kubelet_admin(f.cluster));
  REQUIRE(f.run_until([&] { return !renew_time(f, "node-2").empty(); }));
  using rg::sim::test::call;

  auto list = call(server.port(), "GET", "/sim/kubelets");
  REQUIRE(list.status == 200);
  const auto items = list.json().at("items").as_array();
  REQUIRE(items.size() == 3);
  CHECK(items[1].at("node") == "node-2");
  CHECK(items[1].at("alive") == true);
  CHECK(items[1].at("stoppedAt").is_null());
  CHECK(items[1].at("lastRenewal").is_string());
  CHECK(items[1].at("lastRenewalMonotonic").is_number());

  const double before =
      std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  auto stop = call(server.port(), "POST", "/sim/kubelets/node-2/stop");
  REQUIRE(stop.status == 200);
  const auto stopped = stop.json().as_object();
  CHECK(stopped.at("node") == "node-2");
  CHECK(stopped.at("alive") == false);
  // RFC 3339 with microseconds, and the monotonic clock in seconds.
  CHECK(stopped.at("stoppedAt").as_string().size() ==
        std::string("2026-12-01T14:00:00.000000Z").size());
  CHECK(stopped.at("stoppedAtMonotonic").to_number<double>() >= before);
  CHECK(stopped.at("stoppedAtMonotonic").to_number<double>() < before + 60);

  auto delay = call(server.port(), "POST", "/sim/kubelets/node-3/delay", R"({"seconds": 2.5})");
  REQUIRE(delay.status == 200);
  CHECK(delay.json().at("renewalDelaySeconds").to_number<double>() == 2.5);
  CHECK(call(server.port(), "POST", "/sim/kubelets/node-3/delay", R"({"seconds": "x"})").status ==
        400);
  CHECK(call(server.port(), "POST", "/sim/kubelets/node-9/stop").status == 404);
  CHECK(call(server.port(), "POST", "/sim/kubelets/node-2/explode").status == 404);

  auto one = call(server.port(), "GET", "/sim/kubelets/node-2");
  REQUIRE(one.status == 200);
  CHECK(one.json().at("stoppedAtMonotonic") == stopped.at("stoppedAtMonotonic"));

  REQUIRE(f.run_until(
      [&] { return condition_status(f.get("", "nodes", "", "node-2"), "Ready") == "Unknown"; }));
  auto start = call(server.port(), "POST", "/sim/kubelets/node-2/start");
  REQUIRE(start.status == 200);
  CHECK(start.json().at("alive") == true);
  CHECK(start.json().at("stoppedAt").is_null());
  REQUIRE(f.run_until(
      [&] { return condition_status(f.get("", "nodes", "", "node-2"), "Ready") == "True"; }));
}

TEST_CASE("/sim/faults: a partition by User-Agent and a control-plane outage over HTTP") {
  rg::sim::Server server;
  ClusterFixture f(server.store(), server.registry());
  f.cluster.use_faults(server.faults());
  using rg::sim::test::call;
  const std::vector<std::pair<std::string, std::string>> operator_agent{
      {"User-Agent", "replica-guard/0.1 (linux/amd64)"}};
  const std::vector<std::pair<std::string, std::string>> kubectl_agent{
      {"User-Agent", "kubectl/v1.35.0 (linux/amd64)"}};

  CHECK(call(server.port(), "POST", "/sim/faults/partition?seconds=60").status == 400);
  REQUIRE(call(server.port(), "POST", "/sim/faults/partition?userAgent=replica-guard/&seconds=60")
              .status == 200);
  CHECK(call(server.port(), "GET", "/api/v1/nodes", "", operator_agent).status == 503);
  CHECK(call(server.port(), "GET", "/api/v1/nodes", "", kubectl_agent).status == 200);
  auto faults = call(server.port(), "GET", "/sim/faults").json();
  REQUIRE(faults.at("partitions").as_array().size() == 1);
  CHECK(faults.at("partitions").at(0).at("userAgentPrefix") == "replica-guard/");
  REQUIRE(call(server.port(), "POST", "/sim/faults/heal").status == 200);
  CHECK(call(server.port(), "GET", "/api/v1/nodes", "", operator_agent).status == 200);

  REQUIRE(call(server.port(), "POST", "/sim/faults/outage?seconds=600").status == 200);
  CHECK(call(server.port(), "GET", "/api/v1/nodes", "", kubectl_agent).status == 503);
  CHECK(call(server.port(), "GET", "/sim/faults")
            .json()
            .at("controlPlaneOutageSeconds")
            .to_number<double>() > 500);
  // The kubelets cannot renew, and the node lifecycle controller, cut off too, judges nothing:
  // four grace periods later the Leases have not moved and every node is still Ready.
  const auto before = f.cluster.kubelets()[0].last_renewal->monotonic;
  const auto start = std::chrono::steady_clock::now();
  f.run_until(
      [&] { return std::chrono::steady_clock::now() - start > std::chrono::milliseconds(200); });
  CHECK(f.cluster.kubelets()[0].last_renewal->monotonic == before);
  CHECK(condition_status(f.get("", "nodes", "", "node-1"), "Ready") == "True");
  REQUIRE(call(server.port(), "DELETE", "/sim/faults").status == 200);
  CHECK(call(server.port(), "GET", "/api/v1/nodes", "", kubectl_agent).status == 200);
}
