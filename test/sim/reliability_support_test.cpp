// kube-sim's support for reliability tests: the record of every write (/sim/writes), faults
// scoped to one client identity, and a restart that keeps the stored state.
#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include "sim/server.hpp"
#include "test/sim/api_paths.hpp"
#include "test/sim/http_client.hpp"

namespace json = boost::json;
using rg::sim::test::call;
using rg::sim::test::kDeployments;
using rg::sim::test::Reply;

namespace {

const std::string kGuarded =
    R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","annotations":)"
    R"({"replica-guard.io/enabled":"true","replica-guard.io/desired-replicas":"2"}},)"
    R"("spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":)"
    R"({"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"nginx:1"}]}}}})";

Reply scale_as(unsigned short port, const std::string& agent, int replicas) {
  return call(port, "PATCH", kDeployments + "/web/scale?fieldManager=replica-guard",
              R"({"spec":{"replicas":)" + std::to_string(replicas) + "}}",
              {{"Content-Type", "application/merge-patch+json"}, {"User-Agent", agent}});
}

// Polls until the server accepts connections again (a generous deadline, not a sleep).
bool serving_again(unsigned short port) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    try {
      if (call(port, "GET", "/version").status == 200) return true;
    } catch (const boost::system::system_error&) {
      std::this_thread::yield();
    }
  }
  return false;
}

}  // namespace

TEST_CASE("/sim/writes records each write: who, how it ended, and the fields checks read") {
  rg::sim::Server server;
  const auto port = server.port();
  REQUIRE(call(port, "POST", kDeployments, kGuarded, {{"User-Agent", "kubectl/v1.35.0"}}).status ==
          201);
  REQUIRE(scale_as(port, "replica-guard/1.0 (a)", 3).status == 200);
  REQUIRE(call(port, "GET", kDeployments + "/web").status == 200);  // reads are not recorded
  const auto record = call(port, "GET", "/sim/writes").json();
  const auto& writes = record.at("writes").as_array();
  REQUIRE(writes.size() == 2);
  CHECK(writes[0].at("verb") == "create");
  CHECK(writes[0].at("name") == "web");
  CHECK(writes[0].at("fieldManager") == "kubectl");
  CHECK(writes[0].at("replicas") == 2);
  CHECK(writes[1].at("verb") == "patch");
  CHECK(writes[1].at("subresource") == "scale");
  CHECK(writes[1].at("userAgent") == "replica-guard/1.0 (a)");
  CHECK(writes[1].at("fieldManager") == "replica-guard");
  CHECK(writes[1].at("code") == 200);
  CHECK(writes[1].at("replicas") == 3);
  CHECK(writes[1].at("annotations").at("replica-guard.io/desired-replicas") == "2");
  CHECK(writes[1].at("sequence") == 2);
  CHECK(writes[1].at("received").as_double() <= writes[1].at("time").as_double());
  CHECK(writes[1].at("received").as_double() > 1.7e9);  // a wall-clock time, set on arrival
  CHECK(std::stoull(std::string(writes[1].at("resourceVersion").as_string())) >
        std::stoull(std::string(writes[0].at("resourceVersion").as_string())));
  // ?since= reads on from the last sequence seen; DELETE forgets.
  CHECK(call(port, "GET", "/sim/writes?since=1").json().at("writes").as_array().size() == 1);
  CHECK(call(port, "GET", "/sim/writes?since=x").status == 400);
  CHECK(call(port, "DELETE", "/sim/writes").status == 200);
  CHECK(call(port, "GET", "/sim/writes").json().at("writes").as_array().empty());
}

TEST_CASE("a partition by User-Agent text cuts off one identity, and its attempts are recorded") {
  rg::sim::Server server;
  const auto port = server.port();
  REQUIRE(call(port, "POST", kDeployments, kGuarded).status == 201);
  REQUIRE(call(port, "POST", "/sim/faults/partition?userAgentContains=(a)&seconds=60").status ==
          200);
  CHECK(scale_as(port, "replica-guard/1.0 (a)", 3).status == 503);
  CHECK(scale_as(port, "replica-guard/1.0 (b)", 3).status == 200);
  const auto writes = call(port, "GET", "/sim/writes?since=1").json().at("writes").as_array();
  REQUIRE(writes.size() == 2);
  CHECK(writes[0].at("code") == 503);
  CHECK(writes[0].at("userAgent") == "replica-guard/1.0 (a)");
  CHECK(writes[0].at("resourceVersion") == "");
  // Errors scoped to one identity leave the others alone.
  REQUIRE(call(port, "POST", "/sim/faults/heal").status == 200);
  REQUIRE(call(port, "PUT", "/sim/faults",
               R"j({"errorRate":1,"errorCode":429,"scope":{"userAgentContains":"(b)"}})j")
              .status == 200);
  CHECK(scale_as(port, "replica-guard/1.0 (b)", 4).status == 429);
  CHECK(scale_as(port, "replica-guard/1.0 (a)", 4).status == 200);
  CHECK(call(port, "PUT", "/sim/faults", R"({"scope":"everyone"})").status == 400);
}

TEST_CASE("a restart keeps objects, uids and resourceVersions, and forgets watch history") {
  rg::sim::Server server;
  const auto port = server.port();
  REQUIRE(call(port, "POST", kDeployments, kGuarded).status == 201);
  const auto before = call(port, "GET", kDeployments + "/web").json();
  REQUIRE(scale_as(port, "test", 3).status == 200);  // history to lose: a change after `before`
  REQUIRE(call(port, "POST", "/sim/restart?seconds=0.5").status == 200);
  REQUIRE(serving_again(port));
  const auto after = call(port, "GET", kDeployments + "/web").json();
  CHECK(after.at("metadata").at("uid") == before.at("metadata").at("uid"));
  REQUIRE(scale_as(port, "test", 5).status == 200);
  const auto scaled = call(port, "GET", kDeployments + "/web").json();
  const auto rv = [](const json::value& object) {
    return std::stoull(std::string(object.at("metadata").at("resourceVersion").as_string()));
  };
  CHECK(rv(scaled) > rv(before));
  // A watch resumed from before the restart is told its resourceVersion is gone.
  const auto resumed =
      call(port, "GET",
           kDeployments + "?watch=1&timeoutSeconds=1&resourceVersion=" +
               std::string(before.at("metadata").at("resourceVersion").as_string()));
  CHECK(resumed.body.find("\"code\":410") != std::string::npos);
  CHECK(call(port, "POST", "/sim/restart?seconds=-1").status == 400);
}
