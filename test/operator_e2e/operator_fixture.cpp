// OperatorFixture (see operator_fixture.hpp).
#include "test/operator_e2e/operator_fixture.hpp"

#include <doctest/doctest.h>
#include <spdlog/spdlog.h>
#include <unistd.h>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/json.hpp>

#include <filesystem>
#include <map>
#include <utility>

#include "client/config/resolve.hpp"
#include "operator/logging.hpp"
#include "sim/resource_table.hpp"

namespace rg::op::testing {
namespace json = boost::json;
using sim::testing::condition_status;
using sim::testing::node_of;

sim::ClusterOptions e2e_cluster_options() {
  sim::ClusterOptions options = sim::ClusterOptions{}.scaled(0.01);
  options.pod_eviction_timeout = std::chrono::minutes(10);
  options.retry_delay = std::chrono::milliseconds(10);
  return options;
}

sim::ClusterOptions suspect_node_cluster_options() {
  sim::ClusterOptions options = sim::ClusterOptions{}.scaled(0.1);
  options.node_monitor_grace_period = std::chrono::minutes(1);
  options.pod_eviction_timeout = std::chrono::minutes(10);
  options.retry_delay = std::chrono::milliseconds(10);
  return options;
}

Options suspect_node_options() {
  Options options = e2e_options();
  options.node_lease_grace = "2400ms";
  return options;
}

Options e2e_options() {
  Options options;
  options.metrics_bind_address = "0";
  options.health_probe_bind_address = "0";
  options.node_grace_period = "300ms";
  options.scale_down_delay = "300ms";
  return options;
}

Options with_leader_election(Options options) {
  options.leader_elect = true;
  options.leader_election_namespace = "default";
  options.leader_elect_lease_duration = "1s";
  options.leader_elect_renew_deadline = "600ms";
  options.leader_elect_retry_period = "100ms";
  return options;
}

std::string OperatorFixture::leader() const {
  const auto lease = cluster.get("coordination.k8s.io", "leases", "default", "replica-guard");
  if (lease.empty()) return std::string();
  const auto* identity = lease.at("spec").as_object().if_contains("holderIdentity");
  return identity != nullptr && identity->is_string() ? std::string(identity->as_string())
                                                      : std::string();
}

namespace {
std::string temp_kubeconfig_path() {
  static int counter = 0;
  return (std::filesystem::temp_directory_path() /
          ("replica-guard-e2e-" + std::to_string(getpid()) + "-" + std::to_string(++counter) +
           ".kubeconfig"))
      .string();
}

const json::object& metadata_of(const json::object& object) {
  return object.at("metadata").as_object();
}

std::string label(const json::object& object, std::string_view key) {
  const auto* labels = metadata_of(object).if_contains("labels");
  if (labels == nullptr || !labels->is_object()) return "";
  const auto* value = labels->as_object().if_contains(key);
  return value != nullptr && value->is_string() ? std::string(value->as_string()) : "";
}

// ClusterFixture::type() knows v1 kinds only.
const sim::ResourceType& hpa_type() {
  return *sim::ResourceTable::builtin().find("autoscaling", "v2", "horizontalpodautoscalers");
}

}  // namespace

OperatorFixture::OperatorFixture(std::size_t nodes, sim::ClusterOptions options,
                                 sim::ServerOptions server_options)
    : server(std::move(server_options)),
      cluster(server.store(), server.registry(), options, nodes),
      kubeconfig(server.write_kubeconfig(temp_kubeconfig_path())) {
  // The operator's own log lines, warnings and errors only: a failing test shows why.
  setup_logging(LogFormat::kText, 0);
  spdlog::set_level(spdlog::level::warn);
}

OperatorFixture::~OperatorFixture() {
  for (Operator& op : operators_) {
    if (!op.finished) stop_operator(op);
  }
  std::error_code ignored;
  std::filesystem::remove(kubeconfig, ignored);
}

OperatorFixture::Operator& OperatorFixture::start_operator(Options options) {
  options.kubeconfig = kubeconfig;
  client::ResolveOptions resolve;
  resolve.kubeconfig = kubeconfig;
  Operator& op = operators_.emplace_back();
  op.manager = std::make_unique<Manager>(std::move(options), client::resolve_config(resolve));
  boost::asio::co_spawn(
      cluster.io, op.manager->run(),
      boost::asio::bind_cancellation_slot(op.stop.slot(), [&op](std::exception_ptr error) {
        op.finished = true;
        op.error = std::move(error);
      }));
  return op;
}

void OperatorFixture::stop_operator(Operator& op) {
  op.stop.emit(boost::asio::cancellation_type::terminal);
  CHECK_MESSAGE(run_until([&] { return op.finished; }, std::chrono::seconds(20)),
                "the operator did not shut down promptly");
  if (op.error) {
    try {
      std::rethrow_exception(op.error);
    } catch (const std::exception& e) {
      FAIL_CHECK("the operator ended with an error: " << e.what());
    }
  }
}

bool OperatorFixture::run_until(const std::function<bool()>& done,
                                std::chrono::milliseconds limit) {
  for (const Operator& op : operators_) {
    if (op.finished && op.error) return false;  // a crashed operator never gets there
  }
  return cluster.run_until(done, limit);
}

void OperatorFixture::create_guarded_deployment(
    const std::string& name, int replicas,
    const std::vector<std::pair<std::string, std::string>>& annotations) {
  cluster.create_deployment(name, replicas);
  cluster.annotate_deployment(name, "replica-guard.io/enabled", "true");
  for (const auto& [key, value] : annotations) cluster.annotate_deployment(name, key, value);
}

void OperatorFixture::create_guarded_deployment_in(const std::string& ns, const std::string& name,
                                                   int replicas) {
  if (cluster.get("", "namespaces", "", ns).empty()) {
    cluster.registry.create(
        cluster.type("", "namespaces"), "",
        json::object{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}},
        {"kubectl"});
  }
  json::object deployment{
      {"apiVersion", "apps/v1"},
      {"kind", "Deployment"},
      {"metadata",
       {{"name", name},
        {"namespace", ns},
        {"annotations",
         {{"replica-guard.io/enabled", "true"}, {"replica-guard.io/max-surge", "100%"}}}}},
      {"spec",
       {{"replicas", replicas},
        {"selector", {{"matchLabels", {{"app", name}}}}},
        {"template",
         {{"metadata", {{"labels", {{"app", name}}}}},
          {"spec", {{"containers", json::array{{{"name", "web"}, {"image", "web:1"}}}}}}}}}}};
  cluster.registry.create(cluster.type("apps", "deployments"), ns, std::move(deployment),
                          {"kubectl"});
}

json::object OperatorFixture::deployment_in(const std::string& ns, const std::string& name) const {
  return cluster.get("apps", "deployments", ns, name);
}

void OperatorFixture::create_hpa(const std::string& name, const std::string& target) {
  json::object hpa{
      {"apiVersion", "autoscaling/v2"},
      {"kind", "HorizontalPodAutoscaler"},
      {"metadata", {{"name", name}, {"namespace", "default"}}},
      {"spec",
       {{"scaleTargetRef", {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", target}}},
        {"minReplicas", 2},
        {"maxReplicas", 10},
        {"metrics",
         json::array{{{"type", "Resource"},
                      {"resource",
                       {{"name", "cpu"},
                        {"target", {{"type", "Utilization"}, {"averageUtilization", 60}}}}}}}}}}};
  cluster.registry.create(hpa_type(), "default", std::move(hpa), {"kubectl"});
}

void OperatorFixture::delete_hpa(const std::string& name) {
  cluster.registry.remove(hpa_type(), "default", name, {});
}

int OperatorFixture::spec_replicas(const std::string& name) const {
  const json::object deployment = cluster.get("apps", "deployments", "default", name);
  if (deployment.empty()) return -1;
  const auto* replicas = deployment.at("spec").as_object().if_contains("replicas");
  return replicas != nullptr ? static_cast<int>(replicas->to_number<std::int64_t>()) : 1;
}

std::string OperatorFixture::annotation(const std::string& name, std::string_view key) const {
  const json::object deployment = cluster.get("apps", "deployments", "default", name);
  if (deployment.empty()) return "";
  const auto* annotations = metadata_of(deployment).if_contains("annotations");
  if (annotations == nullptr || !annotations->is_object()) return "";
  const auto* value = annotations->as_object().if_contains(key);
  return value != nullptr && value->is_string() ? std::string(value->as_string()) : "";
}

bool OperatorFixture::has_annotation(const std::string& name, std::string_view key) const {
  const json::object deployment = cluster.get("apps", "deployments", "default", name);
  const auto* annotations = metadata_of(deployment).if_contains("annotations");
  return annotations != nullptr && annotations->is_object() &&
         annotations->as_object().contains(key);
}

int OperatorFixture::ready_pods(const std::string& app) const {
  std::map<std::string, bool> node_ready;
  for (const json::object& node : cluster.list("", "nodes")) {
    node_ready[std::string(metadata_of(node).at("name").as_string())] =
        condition_status(node, "Ready") == "True" &&
        label(node, "sim.replica-guard.io/kubelet") != "stopped";
  }
  int ready = 0;
  for (const json::object& pod : cluster.pods_of(app)) {
    if (condition_status(pod, "Ready") == "True" && node_ready[node_of(pod)]) ++ready;
  }
  return ready;
}

OperatorFixture::BusiestNode OperatorFixture::busiest_node(const std::string& app) const {
  std::map<std::string, int> per_node;
  for (const json::object& pod : cluster.pods_of(app)) ++per_node[node_of(pod)];
  BusiestNode busiest;
  for (const auto& [node, count] : per_node) {
    if (!node.empty() && count > busiest.pods) busiest = {node, count};
  }
  return busiest;
}

OperatorFixture::BusiestNode OperatorFixture::fail_busiest_node(const std::string& app) {
  BusiestNode busiest = busiest_node(app);
  REQUIRE_MESSAGE(busiest.pods > 0, "no node runs a pod of " << app);
  cluster.stop_kubelet(busiest.node, true);
  return busiest;
}

namespace {

// The stored Events about Deployment `name` with `reason`.
std::vector<json::object> events_of(const sim::testing::ClusterFixture& cluster,
                                    const std::string& name, std::string_view reason) {
  std::vector<json::object> out;
  for (json::object& event : cluster.list("", "events", "default")) {
    const auto* involved = event.if_contains("involvedObject");
    if (involved == nullptr || !involved->is_object()) continue;
    const auto* involved_name = involved->as_object().if_contains("name");
    if (involved_name == nullptr || involved_name->as_string() != name) continue;
    if (event.at("reason").as_string() != reason) continue;
    out.push_back(std::move(event));
  }
  return out;
}

}  // namespace

int OperatorFixture::event_count(const std::string& name, std::string_view reason) const {
  int count = 0;
  for (const json::object& event : events_of(cluster, name, reason)) {
    const auto* times = event.if_contains("count");
    count += times != nullptr && times->is_int64() ? static_cast<int>(times->as_int64()) : 1;
  }
  return count;
}

std::string OperatorFixture::event_message(const std::string& name, std::string_view reason) const {
  for (const json::object& event : events_of(cluster, name, reason)) {
    if (const auto* message = event.if_contains("message"); message && message->is_string())
      return std::string(message->as_string());
  }
  return "";
}

bool OperatorFixture::node_ready(const std::string& node) const {
  return condition_status(cluster.get("", "nodes", "", node), "Ready") == "True";
}

void guard_and_settle(OperatorFixture& f, const std::string& name, int replicas,
                      const std::vector<std::pair<std::string, std::string>>& annotations) {
  constexpr std::string_view kDesired = "replica-guard.io/desired-replicas";
  f.create_guarded_deployment(name, replicas, annotations);
  REQUIRE_MESSAGE(f.run_until([&] {
    return f.ready_pods(name) == replicas &&
           f.annotation(name, kDesired) == std::to_string(replicas);
  }),
                  name << ": " << f.ready_pods(name) << " ready, desired annotation \""
                       << f.annotation(name, kDesired) << "\"");
}

}  // namespace rg::op::testing
