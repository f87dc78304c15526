// KubeletEvents (see kubelet_events.hpp).
#include "sim/cluster/kubelet_events.hpp"

#include <fmt/format.h>
#include <boost/json/value.hpp>

#include <functional>

#include "sim/cluster/json_fields.hpp"

namespace rg::sim::cluster {
namespace json = boost::json;
namespace {

struct Container {
  std::string name;
  std::string image;
  std::string pull_policy;
};

std::vector<Container> containers_of(const json::object& pod) {
  std::vector<Container> out;
  if (const auto* spec = find_object(pod, "spec"))
    if (const auto* containers = find_array(*spec, "containers"))
      for (const auto& item : *containers)
        if (const auto* c = item.if_object())
          out.push_back(
              {string_at(*c, "name"), string_at(*c, "image"), string_at(*c, "imagePullPolicy")});
  return out;
}

bool pulls(const Container& container, const std::set<std::string>& images) {
  if (container.pull_policy == "Never") return false;
  return container.pull_policy == "Always" || !images.contains(container.image);
}

std::string field_path(const Container& container) {
  return "spec.containers{" + container.name + "}";
}

// A size for the image, stable per name (the runtime reports the real one).
std::uint64_t image_size(const std::string& image) {
  return 20'000'000 + std::hash<std::string>{}(image) % 180'000'000;
}

}  // namespace

std::string go_duration(std::chrono::milliseconds d) {
  auto ms = d.count();
  if (ms == 0) return "0s";
  if (ms < 1000) return fmt::format("{}ms", ms);
  std::string out;
  if (ms >= 3'600'000) {
    out += fmt::format("{}h", ms / 3'600'000);
    ms %= 3'600'000;
  }
  if (!out.empty() || ms >= 60'000) {
    out += fmt::format("{}m", ms / 60'000);
    ms %= 60'000;
  }
  std::string seconds = fmt::format("{}.{:03}", ms / 1000, ms % 1000);
  while (seconds.back() == '0') seconds.pop_back();
  if (seconds.back() == '.') seconds.pop_back();
  return out + seconds + "s";
}

KubeletEvents::KubeletEvents(Context& context, const std::string& node_name, Identity identity)
    : context_(context),
      node_name_(node_name),
      recorder_(context, {"kubelet", node_name}, std::move(identity)) {}

client::ObjectReference KubeletEvents::node_reference() const {
  client::ObjectReference ref;
  ref.kind = "Node";
  ref.name = node_name_;
  ref.uid = node_name_;  // kubelet.go: UID: types.UID(nodeName)
  return ref;
}

void KubeletEvents::starting() {
  if (!context_.options.record_events) return;
  recorder_.event(node_reference(), "Normal", "Starting", "Starting kubelet.");
  for (std::string_view reason :
       {"NodeHasSufficientMemory", "NodeHasNoDiskPressure", "NodeHasSufficientPID"})
    node_status(reason);
  recorder_.event(node_reference(), "Normal", "NodeAllocatableEnforced",
                  "Updated Node Allocatable limit across pods");
}

void KubeletEvents::node_status(std::string_view reason) {
  recorder_.event(node_reference(), "Normal", reason,
                  fmt::format("Node {} status is now: {}", node_name_, reason));
}

void KubeletEvents::pod_seen(const PodView& pod, const std::set<std::string>& images) {
  if (!context_.options.record_events) return;
  const auto object = pod.object->parse();
  for (const auto& container : containers_of(object))
    if (pulls(container, images))
      recorder_.event(reference_to("v1", "Pod", *pod.object, field_path(container)), "Normal",
                      "Pulling", fmt::format("Pulling image \"{}\"", container.image));
}

void KubeletEvents::pod_started(const StoredObject& pod, std::set<std::string>& images) {
  if (!context_.options.record_events) return;
  const auto object = pod.parse();
  const std::string pull_time = go_duration(
      std::chrono::duration_cast<std::chrono::milliseconds>(context_.options.pod_start_delay));
  for (const auto& container : containers_of(object)) {
    const auto reference = reference_to("v1", "Pod", pod, field_path(container));
    if (pulls(container, images)) {
      recorder_.event(
          reference, "Normal", "Pulled",
          fmt::format("Successfully pulled image \"{}\" in {} ({} including waiting). "
                      "Image size: {} bytes.",
                      container.image, pull_time, pull_time, image_size(container.image)));
      images.insert(container.image);
    } else {
      recorder_.event(reference, "Normal", "Pulled",
                      fmt::format("Container image \"{}\" already present on machine and can be "
                                  "accessed by the pod",
                                  container.image));
    }
    recorder_.event(reference, "Normal", "Created", "Container created");
    recorder_.event(reference, "Normal", "Started", "Container started");
  }
}

void KubeletEvents::pod_stopping(const PodView& pod) {
  if (!context_.options.record_events) return;
  const auto object = pod.object->parse();
  for (const auto& container : containers_of(object))
    recorder_.event(reference_to("v1", "Pod", *pod.object, field_path(container)), "Normal",
                    "Killing", fmt::format("Stopping container {}", container.name));
}

}  // namespace rg::sim::cluster
