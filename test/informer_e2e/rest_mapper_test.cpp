// The DiscoveryClient and RESTMapper against kube-sim: built-in kinds to resources and scope
// through aggregated and legacy discovery, a CustomResourceDefinition created after start found
// on a miss (and not before the refresh interval allows), a group whose discovery fails named
// in the error while the others still map, and a dynamic informer on what the mapper found.
#include <doctest/doctest.h>

#include <chrono>

#include "client/discovery/rest_mapper.hpp"
#include "informer/dynamic_informer_factory.hpp"
#include "test/informer_e2e/custom_resources.hpp"
#include "test/informer_e2e/sim_fixture.hpp"

namespace rg::informer::e2e {
namespace {

client::RESTMapping map_kind(Fixture& f, client::RESTMapper& mapper,
                             client::GroupVersionKind kind) {
  return f.await(mapper.rest_mapping(std::move(kind)));
}

}  // namespace

TEST_CASE("RESTMapper: kinds to resources and scope, a CRD created after start found on a miss") {
  bool legacy = false;
  SUBCASE("aggregated discovery") {}
  SUBCASE("legacy discovery") { legacy = true; }
  Fixture f;
  client::RESTMapper mapper(
      f.client, {.min_refresh_interval = std::chrono::seconds(0), .use_legacy_discovery = legacy});
  const auto pods = map_kind(f, mapper, {"", "", "Pod"});
  CHECK(pods.resource.resource == "pods");
  CHECK(pods.resource.namespaced);
  CHECK(pods.kind == client::GroupVersionKind{"", "v1", "Pod"});
  const auto nodes = map_kind(f, mapper, {"", "v1", "Node"});
  CHECK_FALSE(nodes.resource.namespaced);
  const auto deployments = map_kind(f, mapper, {"apps", "", "Deployment"});
  CHECK(deployments.resource.path() == "/apis/apps/v1/deployments");
  CHECK(f.await(mapper.resource_for({"apps", "", "deploy"})).kind.kind == "Deployment");

  CHECK_THROWS_WITH_AS(map_kind(f, mapper, {"example.com", "", "Widget"}),
                       doctest::Contains("no kind \"Widget\" in group \"example.com\" is served"),
                       client::NoMatchError);
  Writer(f).create_definition("widget", "Widget", true);
  const auto widgets = map_kind(f, mapper, {"example.com", "", "Widget"});
  CHECK(widgets.resource.path() == "/apis/example.com/v1/widgets");
  CHECK(widgets.resource.namespaced);
}

TEST_CASE("RESTMapper: misses rediscover at most once per interval; reset() forgets") {
  Fixture f;
  client::RESTMapper mapper(f.client, {.min_refresh_interval = std::chrono::hours(1)});
  map_kind(f, mapper, {"", "", "Pod"});
  Writer(f).create_definition("widget", "Widget", true);
  // Discovered just now: the miss may not discover again within the hour.
  CHECK_THROWS_AS(map_kind(f, mapper, {"example.com", "", "Widget"}), client::NoMatchError);
  mapper.reset();
  CHECK(map_kind(f, mapper, {"example.com", "", "Widget"}).resource.resource == "widgets");
}

TEST_CASE("RESTMapper: a group whose discovery fails is named, the others still map") {
  Fixture f;
  Writer(f).create_definition("widget", "Widget", true);
  Interception deny;
  deny.deny_code = 403;
  deny.deny_resource = "apis/example.com";  // its APIResourceList
  f.sim.set_interception(deny);
  client::RESTMapper mapper(
      f.client, {.min_refresh_interval = std::chrono::seconds(0), .use_legacy_discovery = true});
  CHECK(map_kind(f, mapper, {"apps", "", "Deployment"}).resource.resource == "deployments");
  CHECK_THROWS_WITH_AS(map_kind(f, mapper, {"example.com", "", "Widget"}),
                       doctest::Contains("discovery of example.com/v1 failed"),
                       client::NoMatchError);
  f.sim.set_interception({});
  CHECK(map_kind(f, mapper, {"example.com", "", "Widget"}).resource.resource == "widgets");
}

TEST_CASE("a dynamic informer on the resource the RESTMapper found") {
  Fixture f;
  Writer writer(f);
  writer.create_definition("gadget", "Gadget", false);
  writer.create(kGadgets, "Gadget", "g-1", 1);
  client::RESTMapper mapper(f.client);
  const auto gadgets = map_kind(f, mapper, {"example.com", "v1", "Gadget"});
  SharedInformerFactoryOptions options;
  options.reflector = fast_reflector();
  options.namespace_ = "default";  // ignored: gadgets are cluster-scoped
  DynamicSharedInformerFactory factory(f.client, options);
  DynamicInformer& informer = factory.for_resource(gadgets.resource);
  factory.start(f.io.get_executor());
  REQUIRE(f.run_until([&] { return informer.has_synced(); }));
  REQUIRE(informer.lister().get("g-1"));
  CHECK(size_of(*informer.lister().get("g-1")) == 1);
  f.await(factory.shutdown());
}

}  // namespace rg::informer::e2e
