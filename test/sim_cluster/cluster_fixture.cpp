// ClusterFixture (see cluster_fixture.hpp).
#include "cluster_fixture.hpp"

#include <doctest/doctest.h>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/json.hpp>

#include <exception>

#include "sim/wire_form.hpp"

namespace rg::sim::testing {
namespace json = boost::json;

ClusterOptions fast_options() {
  ClusterOptions options = ClusterOptions{}.scaled(0.001);
  options.retry_delay = std::chrono::milliseconds(5);
  return options;
}

ClusterFixture::ClusterFixture(ClusterOptions options, std::size_t nodes)
    : owned_store_(std::make_unique<Store>()),
      owned_registry_(std::make_unique<Registry>(*owned_store_, ResourceTable::builtin())),
      store(*owned_store_),
      registry(*owned_registry_),
      cluster(store, std::move(options), io.get_executor()) {
  registry.bootstrap();
  owned_faults_ = std::make_unique<Faults>(store, [] {});
  cluster.use_faults(*owned_faults_);
  start(nodes);
}

Faults& ClusterFixture::faults() {
  REQUIRE_MESSAGE(owned_faults_ != nullptr, "a fixture on a Server's store uses server.faults()");
  return *owned_faults_;
}

ClusterFixture::ClusterFixture(Store& store, Registry& registry, ClusterOptions options,
                               std::size_t nodes)
    : store(store), registry(registry), cluster(store, std::move(options), io.get_executor()) {
  start(nodes);
}

void ClusterFixture::start(std::size_t nodes) {
  cluster.seed_nodes(nodes);
  boost::asio::co_spawn(io, cluster.run(),
                        boost::asio::bind_cancellation_slot(
                            stop_.slot(), [this](std::exception_ptr) { finished_ = true; }));
}

ClusterFixture::~ClusterFixture() {
  stop_.emit(boost::asio::cancellation_type::terminal);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!finished_ && std::chrono::steady_clock::now() < deadline)
    io.run_for(std::chrono::milliseconds(10));
  CHECK_MESSAGE(finished_, "Cluster::run() did not end promptly on cancellation");
  // Whoever wrote them (the controllers, the registry), stored objects are in the wire form.
  for (const auto& type : ResourceTable::builtin().types()) {
    if (type.storage != nullptr) continue;      // stored as another version
    const auto objects = store.list(type, "");  // held: the loop ranges over its items
    for (const auto& item : objects->items)
      for (const auto& violation : wire_form_violations(item->parse()))
        FAIL_CHECK("stored " << type.kind << " " << item->key()
                             << " not in the wire form: " << violation);
  }
}

bool ClusterFixture::run_until(const std::function<bool()>& done, std::chrono::milliseconds limit) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + limit;
  for (;;) {
    const auto checked = Clock::now();
    if (done()) return true;
    const auto now = Clock::now();
    if (now >= deadline) return false;
    // The cluster runs at least four times as long as the check took: the controllers yield in
    // short slices, so a costly check (300 pods parsed under a sanitizer) after every 2 ms would
    // starve them -- the kubelets' Lease renewals would miss their grace period.
    io.run_for(std::max<Clock::duration>(std::chrono::milliseconds(2), 4 * (now - checked)));
  }
}

const ResourceType& ClusterFixture::type(std::string_view group, std::string_view resource) const {
  return *ResourceTable::builtin().find(group, "v1", resource);
}

json::object ClusterFixture::get(std::string_view group, std::string_view resource,
                                 std::string_view namespace_, std::string_view name) const {
  auto object = store.get(type(group, resource), namespace_, name);
  return object ? object->parse() : json::object();
}

std::vector<json::object> ClusterFixture::list(std::string_view group, std::string_view resource,
                                               std::string_view namespace_) const {
  std::vector<json::object> out;
  const auto items = store.list(type(group, resource), namespace_);
  for (const auto& item : items->items) out.push_back(item->parse());
  return out;
}

std::vector<json::object> ClusterFixture::pods_of(const std::string& app) const {
  std::vector<json::object> out;
  const auto pods = store.list(type("", "pods"), "default");
  for (const auto& item : pods->items) {
    auto label = item->labels.find(std::string_view("app"));
    if (label == item->labels.end() || label->second != app) continue;
    auto pod = item->parse();
    if (!pod.at("metadata").as_object().contains("deletionTimestamp")) out.push_back(pod);
  }
  return out;
}

void ClusterFixture::create_deployment(const std::string& name, int replicas,
                                       const std::string& image) {
  json::object deployment{
      {"apiVersion", "apps/v1"},
      {"kind", "Deployment"},
      {"metadata", {{"name", name}, {"namespace", "default"}}},
      {"spec",
       {{"replicas", replicas},
        {"selector", {{"matchLabels", {{"app", name}}}}},
        {"template",
         {{"metadata", {{"labels", {{"app", name}}}}},
          {"spec", {{"containers", json::array{{{"name", "web"}, {"image", image}}}}}}}}}}};
  registry.create(type("apps", "deployments"), "default", std::move(deployment), {"kubectl"});
}

void ClusterFixture::edit_deployment(const std::string& name,
                                     const std::function<void(json::object& spec)>& edit) {
  registry.update(type("apps", "deployments"), "default", name, "",
                  [&](json::object view) {
                    edit(view["spec"].as_object());
                    view["metadata"].as_object().erase("resourceVersion");
                    return view;
                  },
                  {"kubectl"});
}

void ClusterFixture::set_condition_status(std::string_view resource, std::string_view namespace_,
                                          const std::string& name, std::string_view type,
                                          std::string_view status) {
  registry.update(this->type("", resource), namespace_, name, "status",
                  [&](json::object object) {
                    for (auto& condition : object["status"].as_object()["conditions"].as_array())
                      if (condition.at("type").as_string() == type)
                        condition.as_object()["status"] = status;
                    object["metadata"].as_object().erase("resourceVersion");
                    return object;
                  },
                  {"kubectl"});
}

bool ClusterFixture::nodes_ready() const {
  for (const auto& node : list("", "nodes"))
    if (condition_status(node, "Ready") != "True") return false;
  return true;
}

bool ClusterFixture::all_ready(const std::string& app, std::size_t replicas) const {
  auto pods = pods_of(app);
  if (pods.size() != replicas) return false;
  for (const auto& pod : pods)
    if (condition_status(pod, "Ready") != "True") return false;
  return true;
}

void ClusterFixture::annotate_deployment(const std::string& name, const std::string& key,
                                         const std::optional<std::string>& value) {
  registry.update(type("apps", "deployments"), "default", name, "",
                  [&](json::object view) {
                    auto& metadata = view["metadata"].as_object();
                    auto& slot = metadata["annotations"];
                    if (!slot.is_object()) slot.emplace_object();
                    auto& annotations = slot.as_object();
                    if (value)
                      annotations[key] = *value;
                    else
                      annotations.erase(key);
                    metadata.erase("resourceVersion");
                    return view;
                  },
                  {"kubectl"});
}

void ClusterFixture::stop_kubelet(const std::string& node, bool stopped) {
  label_node(node, "sim.replica-guard.io/kubelet",
             stopped ? std::optional<std::string>("stopped") : std::nullopt);
}

void ClusterFixture::label_node(const std::string& node, const std::string& key,
                                const std::optional<std::string>& value) {
  registry.update(type("", "nodes"), "", node, "",
                  [&](json::object view) {
                    auto& slot = view["metadata"].as_object()["labels"];
                    if (!slot.is_object()) slot.emplace_object();
                    auto& labels = slot.as_object();
                    if (value)
                      labels[key] = *value;
                    else
                      labels.erase(key);
                    view["metadata"].as_object().erase("resourceVersion");
                    return view;
                  },
                  {"kubectl"});
}

namespace {
const json::object* find_condition(const json::object& object, std::string_view type) {
  const auto* status = object.if_contains("status");
  if (status == nullptr || !status->is_object()) return nullptr;
  const auto* conditions = status->as_object().if_contains("conditions");
  if (conditions == nullptr || !conditions->is_array()) return nullptr;
  for (const auto& condition : conditions->as_array())
    if (condition.as_object().at("type").as_string() == type) return &condition.as_object();
  return nullptr;
}
}  // namespace

std::string condition_field(const json::object& object, std::string_view type,
                            std::string_view field) {
  const auto* condition = find_condition(object, type);
  if (condition == nullptr) return "";
  const auto* value = condition->if_contains(field);
  return value != nullptr && value->is_string() ? std::string(value->as_string()) : "";
}

std::string node_of(const json::object& pod) {
  const auto* name = pod.at("spec").as_object().if_contains("nodeName");
  return name != nullptr && name->is_string() ? std::string(name->as_string()) : std::string();
}

std::string renew_time(ClusterFixture& f, const std::string& node) {
  auto lease = f.get("coordination.k8s.io", "leases", "kube-node-lease", node);
  if (lease.empty()) return "";
  const auto* renew = lease.at("spec").as_object().if_contains("renewTime");
  return renew != nullptr && renew->is_string() ? std::string(renew->as_string()) : "";
}

std::string condition_status(const json::object& object, std::string_view type) {
  return condition_field(object, type, "status");
}

std::int64_t status_int(const json::object& object, std::string_view field) {
  const auto* status = object.if_contains("status");
  if (status == nullptr || !status->is_object()) return 0;
  const auto* value = status->as_object().if_contains(field);
  return value != nullptr && value->is_int64() ? value->as_int64() : 0;
}

}  // namespace rg::sim::testing
