// enqueue_object and enqueue_controller: which keys each notification queues.
#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <vector>

#include "informer/enqueue_handlers.hpp"
#include "test/informer/test_objects.hpp"

using namespace rg::informer;
using namespace rg::informer::test;

namespace {

PodPtr owned_pod(std::string_view name, std::string_view owner_api_version,
                 std::string_view owner_kind, std::string_view owner_name, bool controller) {
  auto pod = std::make_shared<TestPod>(*make_pod("shop", name, "1"));
  rg::client::OwnerReference ref;
  ref.api_version = owner_api_version;
  ref.kind = owner_kind;
  ref.name = owner_name;
  ref.uid = std::string(owner_name) + "-uid";
  ref.controller = controller;
  pod->metadata.owner_references = {ref};
  return pod;
}

}  // namespace

TEST_CASE("enqueue_object queues the object's own key on add, update and delete") {
  std::vector<std::string> keys;
  auto handler = enqueue_object<TestPod>([&](std::string key) { keys.push_back(key); });
  const auto pod = make_pod("shop", "web-1", "1");
  handler.on_add(pod, true);
  handler.on_update(pod, pod);
  handler.on_delete(pod);
  handler.on_delete(DeletedFinalStateUnknown<TestPod>{"shop/gone", nullptr});
  CHECK(keys == std::vector<std::string>{"shop/web-1", "shop/web-1", "shop/web-1", "shop/gone"});
}

TEST_CASE("enqueue_controller queues the controlling owner of the kind and group asked for") {
  std::vector<std::string> keys;
  auto handler = enqueue_controller<TestPod>("example.com", "Widget",
                                             [&](std::string key) { keys.push_back(key); });
  handler.on_add(owned_pod("a", "example.com/v1", "Widget", "w1", true), false);
  CHECK(keys == std::vector<std::string>{"shop/w1"});

  keys.clear();
  handler.on_add(owned_pod("b", "example.com/v1", "Widget", "w1", false), false);  // not controller
  handler.on_add(owned_pod("c", "other.io/v1", "Widget", "w1", true), false);      // other group
  handler.on_add(owned_pod("d", "example.com/v1", "Gadget", "w1", true), false);   // other kind
  handler.on_add(make_pod("shop", "e", "1"), false);                               // no owner
  CHECK(keys.empty());

  SUBCASE("an update whose controller changed queues the old one too") {
    handler.on_update(owned_pod("a", "example.com/v1", "Widget", "w1", true),
                      owned_pod("a", "example.com/v1", "Widget", "w2", true));
    CHECK(keys == std::vector<std::string>{"shop/w1", "shop/w2"});
  }
  SUBCASE("a delete queues the owner, also from a tombstone's last state") {
    handler.on_delete(owned_pod("a", "example.com/v1", "Widget", "w1", true));
    handler.on_delete(DeletedFinalStateUnknown<TestPod>{
        "shop/a", owned_pod("a", "example.com/v1", "Widget", "w3", true)});
    handler.on_delete(DeletedFinalStateUnknown<TestPod>{"shop/x", nullptr});
    CHECK(keys == std::vector<std::string>{"shop/w1", "shop/w3"});
  }
  SUBCASE("the core group is the empty string") {
    auto core = enqueue_controller<TestPod>("", "ReplicationController",
                                            [&](std::string key) { keys.push_back(key); });
    core.on_add(owned_pod("p", "v1", "ReplicationController", "rc", true), false);
    CHECK(keys == std::vector<std::string>{"shop/rc"});
  }
}
