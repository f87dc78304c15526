// Events through both groups: events.k8s.io/v1 is served from the core/v1 store, converted as
// the API server converts (KK pkg/apis/events/v1/conversion.go), field selectors included.
#include <doctest/doctest.h>

#include <boost/json.hpp>

#include <string>

#include "sim/event_conversion.hpp"
#include "sim/server.hpp"
#include "test/sim/http_client.hpp"

using rg::sim::test::call;
namespace json = boost::json;

namespace {

const std::string kCore = "/api/v1/namespaces/default/events";
const std::string kNew = "/apis/events.k8s.io/v1/namespaces/default/events";

}  // namespace

TEST_CASE("the conversion renames what events.k8s.io renamed and keeps the rest") {
  const json::object core = json::parse(R"({"apiVersion":"v1","kind":"Event",
    "metadata":{"name":"e"},"involvedObject":{"kind":"Pod","name":"p"},"message":"m",
    "reportingComponent":"c","reportingInstance":"i","source":{"component":"c"},
    "firstTimestamp":"2026-01-01T00:00:00Z","lastTimestamp":"2026-01-01T00:00:01Z","count":2,
    "eventTime":null,"series":{"count":3,"lastObservedTime":"2026-01-01T00:00:02.000000Z"},
    "action":"a","reason":"r","type":"Normal"})")
                                .as_object();
  const auto converted = rg::sim::event_core_to_events_v1(core);
  CHECK(converted.at("apiVersion") == "events.k8s.io/v1");
  CHECK(converted.at("regarding").at("name") == "p");
  CHECK(converted.at("note") == "m");
  CHECK(converted.at("reportingController") == "c");
  CHECK(converted.at("reportingInstance") == "i");
  CHECK(converted.at("deprecatedSource").at("component") == "c");
  CHECK(converted.at("deprecatedFirstTimestamp") == "2026-01-01T00:00:00Z");
  CHECK(converted.at("deprecatedLastTimestamp") == "2026-01-01T00:00:01Z");
  CHECK(converted.at("deprecatedCount") == 2);
  CHECK(converted.at("series").at("count") == 3);
  CHECK(converted.at("action") == "a");
  CHECK(rg::sim::event_events_v1_to_core(converted) == core);
}

TEST_CASE("an Event written through one group is read, listed and selected through the other") {
  rg::sim::Server server;
  auto port = server.port();
  REQUIRE(call(port, "POST", kNew, R"({"metadata":{"name":"s.1"},
    "eventTime":"2026-01-01T00:00:00.000000Z","reportingController":"default-scheduler",
    "reportingInstance":"default-scheduler-x","action":"Binding","reason":"Scheduled",
    "regarding":{"kind":"Pod","namespace":"default","name":"web-1","uid":"u1"},
    "note":"Successfully assigned default/web-1 to node-1","type":"Normal"})")
              .status == 201);
  auto core = call(port, "GET", kCore + "/s.1");
  REQUIRE(core.status == 200);
  CHECK(core.json().at("apiVersion") == "v1");
  CHECK(core.json().at("involvedObject").at("name") == "web-1");
  CHECK(core.json().at("message") == "Successfully assigned default/web-1 to node-1");
  CHECK(core.json().at("reportingComponent") == "default-scheduler");
  // kubectl describe's search: core field selectors on the involved object.
  auto described =
      call(port, "GET",
           kCore + "?fieldSelector=involvedObject.name%3Dweb-1," + "involvedObject.uid%3Du1");
  CHECK(described.json().at("items").as_array().size() == 1);

  REQUIRE(call(port, "POST", kCore, R"({"metadata":{"name":"k.1"},
    "involvedObject":{"kind":"Pod","namespace":"default","name":"web-1","uid":"u1"},
    "reason":"Started","message":"Container started","source":{"component":"kubelet"},
    "count":1,"type":"Normal"})")
              .status == 201);
  auto both = call(port, "GET", kNew + "?fieldSelector=regarding.name%3Dweb-1");
  REQUIRE(both.status == 200);
  const auto listed = both.json();  // held: `items` refers into it
  const auto& items = listed.at("items").as_array();
  REQUIRE(items.size() == 2);
  for (const auto& item : items) CHECK(item.at("regarding").at("uid") == "u1");  // converted
  auto started = call(port, "GET", kNew + "/k.1");
  CHECK(started.json().at("note") == "Container started");
  CHECK(started.json().at("deprecatedSource").at("component") == "kubelet");
  CHECK(started.json().at("deprecatedCount") == 1);
  CHECK(call(port, "GET", kNew + "?fieldSelector=regarding.name%3Dother")
            .json()
            .at("items")
            .as_array()
            .empty());
}
