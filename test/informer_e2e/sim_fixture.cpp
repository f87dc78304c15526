// The informer end-to-end fixture (see sim_fixture.hpp).
#include "test/informer_e2e/sim_fixture.hpp"

#include <doctest/doctest.h>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/json.hpp>

#include <algorithm>
#include <sstream>

#include "client/transport/cancellation.hpp"
#include "informer/object_key.hpp"
#include "sim/api_server.hpp"
#include "sim/http_server.hpp"
#include "sim/registry.hpp"
#include "sim/resource_table.hpp"
#include "sim/responses.hpp"

namespace rg::informer::e2e {

namespace asio = boost::asio;
namespace json = boost::json;

namespace {

constexpr std::string_view kInitialEventsEnd = "k8s.io/initial-events-end";

// Forwards to the real stream, leaving out every part that carries the initial-events-end
// bookmark (kube-sim writes each bookmark as a part of its own).
class DroppingInitialEventsEnd final : public sim::ResponseStream {
 public:
  explicit DroppingInitialEventsEnd(sim::ResponseStream& inner) : inner_(inner) {}
  asio::awaitable<void> send(sim::HttpResponse& response) override { return inner_.send(response); }
  asio::awaitable<void> begin(int status, const sim::Headers& headers) override {
    return inner_.begin(status, headers);
  }
  asio::awaitable<void> chunk(std::span<const std::string_view> parts) override {
    kept_.clear();
    for (std::string_view part : parts) {
      if (part.find(kInitialEventsEnd) == std::string_view::npos) kept_.push_back(part);
    }
    co_await inner_.chunk(kept_);
  }
  asio::awaitable<void> end() override { return inner_.end(); }
  asio::awaitable<void> wait_closed() override { return inner_.wait_closed(); }
  asio::any_io_executor executor() override { return inner_.executor(); }

 private:
  sim::ResponseStream& inner_;
  std::vector<std::string_view> kept_;
};

client::Status failure(int code, std::string reason, std::string message) {
  client::Status status;
  status.status = "Failure";
  status.code = code;
  status.reason = std::move(reason);
  status.message = std::move(message);
  return status;
}

}  // namespace

struct InterceptingSim::Impl {
  Impl(InterceptingSim& owner, sim::StoreOptions store_options)
      : store(store_options),
        registry(store, sim::ResourceTable::builtin()),
        http(io, sim::HttpServerOptions{},
             [this](sim::HttpRequest& request, sim::ResponseStream& stream) {
               return handle(request, stream);
             }),
        faults(store, [this] { http.close_connections(); }),
        owner(owner) {
    sim::ApiServerOptions api_options;
    api_options.watch.bookmark_interval = kBookmarkInterval;
    api = std::make_unique<sim::ApiServer>(registry, api_options,
                                           "127.0.0.1:" + std::to_string(http.port()));
    api->set_hook([this](sim::HttpRequest& request, sim::ResponseStream& stream) {
      return faults.intercept(request, stream);
    });
  }

  asio::awaitable<void> handle(sim::HttpRequest& request, sim::ResponseStream& stream) {
    const Interception rules = owner.interception();
    const bool watch_list =
        request.param("sendInitialEvents") == std::optional<std::string_view>("true");
    if (watch_list) ++owner.watch_list_requests_;
    const bool on_denied = rules.deny_code != 0 && !rules.deny_resource.empty() &&
                           request.path.find("/" + rules.deny_resource) != std::string::npos;
    std::optional<client::Status> refusal;
    if (on_denied && rules.deny_code == 401) {
      refusal = failure(401, "Unauthorized", "Unauthorized");
    } else if (on_denied) {
      const std::string verb = request.param("watch") ? "watch" : "list";
      refusal = failure(403, "Forbidden",
                        rules.deny_resource +
                            " is forbidden: User \"system:serviceaccount:rg:replica-guard\" "
                            "cannot " +
                            verb + " resource \"" + rules.deny_resource +
                            "\" in API group \"\" at the cluster scope");
    } else if (watch_list && rules.refuse_watch_list) {
      refusal = failure(422, "Invalid",
                        "ListOptions.meta.k8s.io \"\" is invalid: sendInitialEvents: Forbidden: "
                        "sendInitialEvents is forbidden for watch unless the WatchList feature "
                        "gate is enabled");
    }
    if (refusal) {
      sim::HttpResponse response = sim::status_response(*refusal);
      co_await stream.send(response);
      co_return;
    }
    if (watch_list && rules.drop_initial_events_end) {
      DroppingInitialEventsEnd filtered(stream);
      co_await api->handle(request, filtered);
      co_return;
    }
    co_await api->handle(request, stream);
  }

  asio::io_context io;
  sim::Store store;
  sim::Registry registry;
  std::unique_ptr<sim::ApiServer> api;
  sim::HttpServer http;
  sim::Faults faults;
  InterceptingSim& owner;
  std::thread thread;
};

InterceptingSim::InterceptingSim(sim::StoreOptions store)
    : impl_(std::make_unique<Impl>(*this, store)) {
  impl_->registry.bootstrap();
  impl_->http.start();
  impl_->thread = std::thread([this] { impl_->io.run(); });
}

InterceptingSim::~InterceptingSim() {
  impl_->http.stop();
  impl_->store.close_all_watchers();
  impl_->thread.join();
}

std::string InterceptingSim::address() const {
  return "http://127.0.0.1:" + std::to_string(impl_->http.port());
}
sim::Store& InterceptingSim::store() { return impl_->store; }
sim::Faults& InterceptingSim::faults() { return impl_->faults; }

void InterceptingSim::set_interception(Interception interception) {
  std::lock_guard lock(mutex_);
  interception_ = std::move(interception);
}

Interception InterceptingSim::interception() const {
  std::lock_guard lock(mutex_);
  return interception_;
}

reflector::Config fast_reflector() {
  reflector::Config config;
  config.backoff.initial = std::chrono::milliseconds(5);
  config.backoff.max = std::chrono::milliseconds(100);
  config.min_watch_timeout = std::chrono::seconds(5);
  return config;
}

SharedIndexInformer<client::Pod>::Options pod_informer_options(std::string label_selector,
                                                               bool watch_list) {
  SharedIndexInformer<client::Pod>::Options options;
  options.scope = {client::resources::pods(), std::move(label_selector), ""};
  options.name = "pods";
  options.reflector = fast_reflector();
  options.reflector.use_watch_list = watch_list;
  return options;
}

namespace {
client::RestConfig config_for(const std::string& address) {
  client::RestConfig config;
  config.host = address;
  config.source = "informer e2e test";
  return config;
}
}  // namespace

Fixture::Fixture(int io_threads, sim::StoreOptions store)
    : sim(store), client(config_for(sim.address())) {
  if (io_threads > 0) {
    work_.emplace(io.get_executor());
    for (int i = 0; i < io_threads; ++i) threads_.emplace_back([this] { io.run(); });
  }
}

Fixture::~Fixture() {
  if (running()) CHECK_MESSAGE(stop(), "the informer did not stop promptly on cancellation");
  if (work_) {
    work_.reset();
    io.stop();
    for (auto& thread : threads_) thread.join();
  }
}

bool Fixture::run_until(const std::function<bool()>& done, std::chrono::milliseconds limit) {
  const auto deadline = Clock::now() + limit;
  while (!done()) {
    if (Clock::now() >= deadline) return false;
    if (threads_.empty()) {
      io.restart();
      io.run_for(std::chrono::milliseconds(2));
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));  // only re-checks `done`
    }
  }
  return true;
}

void Fixture::start(asio::awaitable<void> run) {
  started_ = true;
  ended_ = false;
  auto on_end = [this](std::exception_ptr error) {
    if (error && !client::is_cancellation(error)) {
      try {
        std::rethrow_exception(error);
      } catch (const std::exception& e) {
        FAIL_CHECK("the informer ended with: " << std::string(e.what()));
      }
    }
    ended_ = true;
  };
  asio::co_spawn(io, std::move(run), asio::bind_cancellation_slot(stop_.slot(), on_end));
}

bool Fixture::stop() {
  if (!started_) return true;
  asio::post(io, [this] { stop_.emit(asio::cancellation_type::terminal); });
  return run_until([this] { return ended_.load(); }, std::chrono::seconds(20));
}

const sim::ResourceType& Fixture::pods_type() const {
  return *sim::ResourceTable::builtin().find("", "v1", "pods");
}

json::object Fixture::pod_json(const std::string& namespace_, const std::string& name,
                               const std::map<std::string, std::string>& labels) const {
  json::object label_object;
  for (const auto& [key, value] : labels) label_object[key] = value;
  return {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", {{"name", name}, {"namespace", namespace_}, {"labels", label_object}}},
      {"spec", {{"containers", json::array{json::object{{"name", "app"}, {"image", "app:1"}}}}}}};
}

std::string Fixture::create_pod(const std::string& namespace_, const std::string& name,
                                const std::map<std::string, std::string>& labels) {
  auto stored = sim.store().create(pods_type(), pod_json(namespace_, name, labels));
  return std::to_string(stored->resource_version);
}

void Fixture::create_pods(const std::string& namespace_, int count,
                          const std::map<std::string, std::string>& labels) {
  for (int i = 0; i < count; ++i) create_pod(namespace_, "pod-" + std::to_string(i), labels);
}

std::string Fixture::touch_pod(const std::string& namespace_, const std::string& name) {
  auto bump = [](const sim::StoredObject&, json::object object) {
    auto& metadata = object["metadata"].as_object();
    if (!metadata.contains("annotations")) metadata["annotations"] = json::object();
    auto& annotations = metadata["annotations"].as_object();
    const auto* old = annotations.if_contains("touched");
    const int count = old ? std::stoi(std::string(old->as_string())) + 1 : 1;
    annotations["touched"] = std::to_string(count);
    return object;
  };
  return std::to_string(sim.store().update(pods_type(), namespace_, name, bump)->resource_version);
}

std::string Fixture::set_pod_label(const std::string& namespace_, const std::string& name,
                                   const std::string& key, const std::string& value) {
  auto relabel = [&](const sim::StoredObject&, json::object object) {
    auto& metadata = object["metadata"].as_object();
    if (!metadata.contains("labels")) metadata["labels"] = json::object();
    metadata["labels"].as_object()[key] = value;
    return object;
  };
  return std::to_string(
      sim.store().update(pods_type(), namespace_, name, relabel)->resource_version);
}

std::string Fixture::create_config_map(const std::string& name) {
  const auto& type = *sim::ResourceTable::builtin().find("", "v1", "configmaps");
  json::object config_map{{"apiVersion", "v1"},
                          {"kind", "ConfigMap"},
                          {"metadata", {{"name", name}, {"namespace", "default"}}},
                          {"data", {{"k", "v"}}}};
  return std::to_string(sim.store().create(type, std::move(config_map))->resource_version);
}

void Fixture::delete_pod(const std::string& namespace_, const std::string& name) {
  sim.store().remove(pods_type(), namespace_, name);
}

StateMap Fixture::server_state(const client::ResourceRef& resource,
                               const std::string& label_selector) {
  StateMap state;
  std::string continue_token;
  do {
    client::ListOptions options;
    options.label_selector = label_selector;
    options.limit = 250;
    options.continue_ = continue_token;
    auto list = [this, resource, options]() -> asio::awaitable<json::value> {
      co_return co_await client.list(resource, options);
    };
    const json::value page = await(list());
    for (const auto& item : page.at("items").as_array()) {
      const auto& metadata = item.at("metadata").as_object();
      std::string key;
      if (const auto* ns = metadata.if_contains("namespace")) {
        key = std::string(ns->as_string()) + "/";
      }
      key += metadata.at("name").as_string();
      state[key] = std::string(metadata.at("resourceVersion").as_string());
    }
    const auto* meta = page.at("metadata").as_object().if_contains("continue");
    continue_token = meta ? std::string(meta->as_string()) : "";
  } while (!continue_token.empty());
  return state;
}

double counter_value(prometheus::Registry& registry, const std::string& family,
                     const std::map<std::string, std::string>& labels) {
  for (const auto& f : registry.Collect()) {
    if (f.name != family) continue;
    for (const auto& metric : f.metric) {
      std::size_t matched = 0;
      for (const auto& label : metric.label) {
        auto it = labels.find(label.name);
        if (it != labels.end() && it->second == label.value) ++matched;
      }
      if (matched == labels.size()) return metric.counter.value;
    }
  }
  return -1;
}

StateMap cache_state(const Indexer<client::Pod>& cache) {
  StateMap state;
  for (const auto& pod : cache.list()) {
    state[meta_namespace_key(*pod)] = pod->metadata.resource_version;
  }
  return state;
}

std::string describe_difference(const StateMap& cache, const StateMap& server) {
  std::ostringstream out;
  int shown = 0;
  auto note = [&](const std::string& line) {
    if (++shown <= 20) out << "  " << line << "\n";
  };
  for (const auto& [key, rv] : server) {
    auto it = cache.find(key);
    if (it == cache.end()) {
      note("missing from the cache: " + key + " @" + rv);
    } else if (it->second != rv) {
      note("stale in the cache: " + key + " @" + it->second + ", server @" + rv);
    }
  }
  for (const auto& [key, rv] : cache) {
    if (!server.contains(key)) note("in the cache but gone from the server: " + key + " @" + rv);
  }
  if (shown == 0) return "";
  return std::to_string(shown) + " difference(s), cache " + std::to_string(cache.size()) +
         " objects, server " + std::to_string(server.size()) + ":\n" + out.str();
}

void Fixture::require_cache_matches_server(const Indexer<client::Pod>& cache,
                                           const client::ResourceRef& resource,
                                           const std::string& label_selector) {
  const StateMap server = server_state(resource, label_selector);
  const bool equal = run_until([&] { return cache_state(cache) == server; });
  REQUIRE_MESSAGE(equal, describe_difference(cache_state(cache), server));
}

}  // namespace rg::informer::e2e
