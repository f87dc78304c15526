// Realistic Nodes (see node_template.hpp).
#include "sim/cluster/node_template.hpp"

#include <fmt/format.h>
#include <boost/json/array.hpp>
#include <boost/json/value.hpp>

#include <string>
#include <tuple>

#include "sim/cluster/json_fields.hpp"
#include "sim/realistic_pod.hpp"

namespace rg::sim::cluster {
namespace json = boost::json;

void fill_node_status(json::object& status, std::string_view name, std::string_view kubelet_version,
                      unsigned index) {
  const json::object capacity{{"cpu", "4"},
                              {"ephemeral-storage", "101430960Ki"},
                              {"hugepages-1Gi", "0"},
                              {"hugepages-2Mi", "0"},
                              {"memory", "16362404Ki"},
                              {"pods", "110"}};
  json::object allocatable = capacity;
  allocatable["ephemeral-storage"] = "93478772582";
  allocatable["memory"] = "16260004Ki";
  std::string machine_id = uuid_from(std::string(name) + "/machine");
  std::erase(machine_id, '-');
  status["capacity"] = capacity;
  status["allocatable"] = std::move(allocatable);
  status["addresses"] =
      json::array{json::object{{"type", "InternalIP"},
                               {"address", fmt::format("172.18.0.{}", 2 + index % 250)}},
                  json::object{{"type", "Hostname"}, {"address", name}}};
  status["daemonEndpoints"] = json::object{{"kubeletEndpoint", json::object{{"Port", 10250}}}};
  status["nodeInfo"] = json::object{{"machineID", machine_id},
                                    {"systemUUID", uuid_from(std::string(name) + "/system")},
                                    {"bootID", uuid_from(std::string(name) + "/boot")},
                                    {"kernelVersion", "6.8.0-1017-generic"},
                                    {"osImage", "Debian GNU/Linux 12 (bookworm)"},
                                    {"containerRuntimeVersion", "containerd://2.1.4"},
                                    {"kubeletVersion", kubelet_version},
                                    {"operatingSystem", "linux"},
                                    {"architecture", "amd64"}};
}

json::object realistic_node(std::string_view name, unsigned index,
                            std::string_view kubelet_version) {
  const std::string now = now_time();
  json::object status;
  fill_node_status(status, name, kubelet_version, index);
  json::array conditions;
  for (auto [type, reason, message] :
       {std::tuple{"MemoryPressure", "KubeletHasSufficientMemory",
                   "kubelet has sufficient memory available"},
        std::tuple{"DiskPressure", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"},
        std::tuple{"PIDPressure", "KubeletHasSufficientPID",
                   "kubelet has sufficient PID available"},
        std::tuple{"Ready", "KubeletReady", "kubelet is posting ready status"}})
    conditions.push_back(
        json::object{{"type", type},
                     {"status", std::string_view(type) == "Ready" ? "True" : "False"},
                     {"lastHeartbeatTime", now},
                     {"lastTransitionTime", now},
                     {"reason", reason},
                     {"message", message}});
  status["conditions"] = std::move(conditions);
  const std::string cidr = fmt::format("10.244.{}.0/24", index % 256);
  return json::object{
      {"apiVersion", "v1"},
      {"kind", "Node"},
      {"metadata",
       json::object{
           {"name", name},
           {"labels", json::object{{"beta.kubernetes.io/arch", "amd64"},
                                   {"beta.kubernetes.io/os", "linux"},
                                   {"kubernetes.io/arch", "amd64"},
                                   {"kubernetes.io/hostname", name},
                                   {"kubernetes.io/os", "linux"},
                                   {"node-role.kubernetes.io/worker", ""}}},
           {"annotations",
            json::object{{"node.alpha.kubernetes.io/ttl", "0"},
                         {"volumes.kubernetes.io/controller-managed-attach-detach", "true"}}}}},
      {"spec", json::object{{"podCIDR", cidr}, {"podCIDRs", json::array{cidr}}}},
      {"status", std::move(status)}};
}

}  // namespace rg::sim::cluster
