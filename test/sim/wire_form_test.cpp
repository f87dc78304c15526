// The wire form (sim/wire_form.hpp): objects as encoding/json writes the k8s.io/api 1.35 types --
// zero values of fields without omitempty written, empty omitempty fields dropped, structs always
// written, the zero creationTimestamp (omitzero) dropped -- and kube-sim storing them so.
#include <doctest/doctest.h>

#include <boost/json.hpp>

#include <algorithm>
#include <string>

#include "sim/object_store.hpp"
#include "sim/resource_table.hpp"
#include "sim/wire_form.hpp"

namespace json = boost::json;
using namespace rg::sim;

namespace {

json::object wire_form(std::string_view group, std::string_view kind, std::string_view text) {
  const auto* type = wire_type(group, group == "autoscaling" ? "v2" : "v1", kind);
  REQUIRE(type != nullptr);
  auto object = json::parse(text).as_object();
  to_wire_form(*type, object);
  return object;
}

}  // namespace

TEST_CASE("fields without omitempty are written with their zero value") {
  auto node = wire_form("", "Node", R"({"metadata":{"name":"n"},
      "status":{"nodeInfo":{"kubeletVersion":"v1.35.0"}}})");
  const auto& info = node.at("status").at("nodeInfo").as_object();
  CHECK(info.at("kubeletVersion") == "v1.35.0");
  for (auto field :
       {"machineID", "systemUUID", "bootID", "kernelVersion", "osImage", "containerRuntimeVersion",
        "kubeProxyVersion", "operatingSystem", "architecture"})
    CHECK_MESSAGE(info.at(field) == "", field);
  // A struct is written even with omitempty, as are its own fields without it.
  CHECK(node.at("spec").as_object().empty());
  CHECK(node.at("status").at("daemonEndpoints") ==
        json::parse(R"({"kubeletEndpoint":{"Port":0}})"));

  auto pod = wire_form("", "Pod", R"({"metadata":{"name":"p"},"spec":{"containers":[
      {"name":"c","image":"i"}]},"status":{"phase":"Running","conditions":[{"type":"Ready",
      "status":"True"}],"containerStatuses":[{"name":"c","state":{"running":{}}}]}})");
  const auto& status = pod.at("status").as_object();
  // metav1.Time is a struct: omitempty cannot drop it, the zero time is null.
  CHECK(status.at("conditions").at(0) ==
        json::parse(R"({"type":"Ready","status":"True","lastProbeTime":null,
                        "lastTransitionTime":null})"));
  const auto& container = status.at("containerStatuses").at(0).as_object();
  CHECK(container.at("ready") == false);
  CHECK(container.at("restartCount") == 0);
  CHECK(container.at("image") == "");
  CHECK(container.at("imageID") == "");
  CHECK(container.at("state").at("running").at("startedAt").is_null());
}

TEST_CASE("empty omitempty fields are dropped; nil slices without omitempty are null") {
  auto pod = wire_form("", "Pod", R"({"metadata":{"name":"p","labels":{},"namespace":"",
      "finalizers":[],"generation":0},"spec":{"containers":null,"nodeName":"",
      "hostNetwork":false,"tolerations":[],"priority":0}})");
  const auto& meta = pod.at("metadata").as_object();
  CHECK(meta.size() == 1);
  CHECK(meta.at("name") == "p");
  const auto& spec = pod.at("spec").as_object();
  CHECK(spec.at("containers").is_null());
  CHECK(!spec.contains("nodeName"));
  CHECK(!spec.contains("hostNetwork"));
  CHECK(!spec.contains("tolerations"));
  // A pointer is dropped only when nil: *int32 priority 0 stays.
  CHECK(spec.at("priority") == 0);
}

TEST_CASE("the zero creationTimestamp is left out (omitzero), a set one kept") {
  auto deployment = wire_form("apps", "Deployment", R"({"metadata":{"name":"d",
      "creationTimestamp":"2026-01-01T00:00:00Z"},"spec":{"selector":{"matchLabels":{"a":"b"}},
      "template":{"metadata":{"creationTimestamp":null,"labels":{"a":"b"}},
      "spec":{"containers":[{"name":"c"}]}}}})");
  CHECK(deployment.at("metadata").at("creationTimestamp") == "2026-01-01T00:00:00Z");
  const auto& template_ = deployment.at("spec").at("template").as_object();
  CHECK(!template_.at("metadata").as_object().contains("creationTimestamp"));
  CHECK(deployment.at("status").as_object().empty());
  // Fields the Go type does not declare are left alone.
  auto lease = wire_form("coordination.k8s.io", "Lease", R"({"metadata":{"name":"l"},"x":1})");
  CHECK(lease.at("x") == 1);
  CHECK(lease.at("spec").as_object().empty());
}

TEST_CASE("null where Go has a value type becomes its zero value") {
  auto service = wire_form("", "Service", R"({"metadata":{"name":"s"},"spec":{"ports":[
      {"port":80,"targetPort":null,"name":null}]},"status":null})");
  const auto& port = service.at("spec").at("ports").at(0).as_object();
  CHECK(port.at("targetPort") == 0);  // intstr.IntOrString: a struct
  CHECK(!port.contains("name"));      // a string with omitempty: "" is dropped
  CHECK(service.at("status") == json::parse(R"({"loadBalancer":{}})"));
}

TEST_CASE("wire_form_violations names each difference and passes conforming objects") {
  auto violations = wire_form_violations(json::parse(R"({"kind":"Node","apiVersion":"v1",
      "metadata":{"name":"n"},"spec":{},"status":{"nodeInfo":{"machineID":"m"},
      "daemonEndpoints":{"kubeletEndpoint":{"Port":10250}},"phase":""}})")
                                             .as_object());
  CHECK(violations.size() == 10);  // nine absent NodeSystemInfo fields, one empty phase
  CHECK(std::find(violations.begin(), violations.end(),
                  "status.nodeInfo.kubeProxyVersion: absent, written \"\"") != violations.end());
  CHECK(std::find(violations.begin(), violations.end(),
                  "status.phase: empty, left out (omitempty)") != violations.end());
  CHECK(wire_form_violations(wire_form("", "Node", R"({"kind":"Node","apiVersion":"v1",
      "metadata":{"name":"n"}})"))
            .empty());
  // A list item is checked as its list's kind says; custom kinds have no Go type.
  auto item =
      wire_form_violations(json::parse(R"({"metadata":{}})").as_object(), "apps/v1", "Deployment");
  CHECK(std::find(item.begin(), item.end(), "status: absent, written {}") != item.end());
  CHECK(wire_form_violations(
            json::parse(R"({"kind":"Widget","apiVersion":"example.com/v1"})").as_object())
            .empty());
}

TEST_CASE("the store writes every built-in kind in the wire form") {
  Store store;
  const auto& nodes = *ResourceTable::builtin().find("", "v1", "nodes");
  auto created = store.create(nodes, json::parse(R"({"kind":"Node","apiVersion":"v1",
      "metadata":{"name":"n","labels":{}},"status":{"nodeInfo":{"kubeletVersion":"v1"}}})")
                                         .as_object());
  auto stored = created->parse();
  CHECK(stored.at("status").at("nodeInfo").at("kubeProxyVersion") == "");
  CHECK(!stored.at("metadata").as_object().contains("labels"));
  CHECK(wire_form_violations(stored).empty());
  // An update that only adds what the wire form leaves out is no change at all.
  auto same = store.update(nodes, "", "n", [](const StoredObject&, json::object object) {
    object["metadata"].as_object()["annotations"] = json::object();
    return object;
  });
  CHECK(same->resource_version == created->resource_version);
}
