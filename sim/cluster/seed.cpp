// Seeding nodes and deployments (see seed.hpp).
#include "sim/cluster/seed.hpp"

#include <fmt/format.h>
#include <boost/json/value.hpp>

#include "sim/cluster/caches.hpp"
#include "sim/cluster/deployment_controller.hpp"
#include "sim/cluster/json_fields.hpp"
#include "sim/cluster/node_template.hpp"
#include "sim/cluster/pod_template_hash.hpp"
#include "sim/realistic_pod.hpp"

namespace rg::sim {
namespace json = boost::json;

std::vector<std::string> seed_nodes(Store& store, std::size_t count,
                                    const std::string& kubelet_version) {
  const auto& nodes = ResourceTypes::builtin().nodes;
  std::vector<std::string> created;
  for (std::size_t i = 1; i <= count; ++i) {
    std::string name = fmt::format("node-{}", i);
    if (store.get(nodes, "", name)) continue;
    store.create(nodes, cluster::realistic_node(name, static_cast<unsigned>(i), kubelet_version));
    created.push_back(std::move(name));
  }
  return created;
}

namespace {

// The pod template realistic_pod() pods come from (what `kubectl create deployment` plus the
// API server's defaults make).
json::object pod_template(const std::string& app, const std::string& image) {
  json::object container{
      {"name", app},
      {"image", image},
      {"ports",
       json::array{json::object{{"name", "http"}, {"containerPort", 8080}, {"protocol", "TCP"}}}},
      {"resources", json::object{{"limits", json::object{{"memory", "256Mi"}}},
                                 {"requests", json::object{{"cpu", "100m"}, {"memory", "128Mi"}}}}},
      {"terminationMessagePath", "/dev/termination-log"},
      {"terminationMessagePolicy", "File"},
      {"imagePullPolicy", "IfNotPresent"}};
  return json::object{{"metadata", json::object{{"labels", json::object{{"app", app}}}}},
                      {"spec", json::object{{"containers", json::array{std::move(container)}},
                                            {"restartPolicy", "Always"},
                                            {"terminationGracePeriodSeconds", 30},
                                            {"dnsPolicy", "ClusterFirst"},
                                            {"securityContext", json::object{}},
                                            {"schedulerName", "default-scheduler"}}}};
}

json::object ready_status(std::int64_t replicas, const std::string& rs_name,
                          const std::string& now) {
  auto condition = [&](std::string_view type, std::string_view reason, std::string message) {
    return json::object{{"type", type},          {"status", "True"},
                        {"lastUpdateTime", now}, {"lastTransitionTime", now},
                        {"reason", reason},      {"message", std::move(message)}};
  };
  json::object status{{"observedGeneration", 1}};
  if (replicas > 0)
    for (auto key : {"replicas", "updatedReplicas", "readyReplicas", "availableReplicas"})
      status[key] = replicas;
  status["conditions"] = json::array{
      condition("Available", "MinimumReplicasAvailable", "Deployment has minimum availability."),
      condition("Progressing", "NewReplicaSetAvailable",
                fmt::format("ReplicaSet \"{}\" has successfully progressed.", rs_name))};
  return status;
}

}  // namespace

void seed_deployments(Store& store, const DeploymentSeed& seed) {
  const auto& types = ResourceTypes::builtin();
  std::vector<std::string> nodes;
  const auto node_list = store.list(types.nodes, "");
  for (const auto& node : node_list->items) nodes.push_back(node->name);
  const std::string now = cluster::now_time();
  const auto replicas = static_cast<std::int64_t>(seed.pods_per_deployment);
  std::uint64_t ordinal = 0;
  for (std::size_t d = 1; d <= seed.deployments; ++d) {
    const std::string name = fmt::format("{}-{}", seed.name_prefix, d);
    json::object pod_template_object = pod_template(name, seed.image);
    const std::string hash = cluster::pod_template_hash(pod_template_object);
    const std::string rs_name = fmt::format("{}-{}", name, hash);
    json::object deployment{
        {"apiVersion", "apps/v1"},
        {"kind", "Deployment"},
        {"metadata",
         json::object{{"name", name},
                      {"namespace", seed.namespace_},
                      {"generation", 1},
                      {"labels", json::object{{"app", name}}},
                      {"annotations", json::object{{"deployment.kubernetes.io/revision", "1"}}}}},
        {"spec", json::object{{"replicas", replicas},
                              {"selector", json::object{{"matchLabels", {{"app", name}}}}},
                              {"template", std::move(pod_template_object)},
                              {"strategy", json::object{{"type", "RollingUpdate"},
                                                        {"rollingUpdate",
                                                         json::object{{"maxUnavailable", "25%"},
                                                                      {"maxSurge", "25%"}}}}},
                              {"revisionHistoryLimit", 10},
                              {"progressDeadlineSeconds", 600}}},
        {"status", ready_status(replicas, rs_name, now)}};
    auto stored = store.create(types.deployments, std::move(deployment));
    json::object rs = cluster::new_replica_set(cluster::DeploymentView::from(stored), replicas, 1);
    auto& rs_status = object_at(rs, "status");
    rs_status["replicas"] = replicas;
    if (replicas > 0)
      for (auto key : {"fullyLabeledReplicas", "readyReplicas", "availableReplicas"})
        rs_status[key] = replicas;
    rs_status["observedGeneration"] = 1;
    auto stored_rs = store.create(types.replica_sets, std::move(rs));
    RealisticPodSpec pod;
    pod.namespace_ = seed.namespace_;
    pod.deployment = name;
    pod.template_hash = hash;
    pod.replica_set_uid = stored_rs->uid;
    pod.image = seed.image;
    pod.creation_timestamp = now;
    pod.ready = !nodes.empty();
    for (std::size_t i = 0; i < seed.pods_per_deployment; ++i, ++ordinal) {
      pod.ordinal = ordinal;
      pod.node_name = nodes.empty() ? std::string() : nodes[ordinal % nodes.size()];
      store.create(types.pods, realistic_pod(pod));
    }
  }
}

}  // namespace rg::sim
