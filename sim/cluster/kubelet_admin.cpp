// The /sim/kubelets admin endpoint (see kubelet_admin.hpp).
#include "sim/cluster/kubelet_admin.hpp"

#include <fmt/format.h>
#include <boost/json/serialize.hpp>

#include <stdexcept>
#include <string>

#include "client/model/time.hpp"
#include "sim/api_error.hpp"
#include "sim/body.hpp"
#include "sim/cluster/caches.hpp"
#include "sim/responses.hpp"

namespace rg::sim {
namespace json = boost::json;
namespace {

constexpr std::string_view kPrefix = "/sim/kubelets";

json::value wall(const std::optional<Instant>& at) {
  if (!at) return nullptr;
  return json::string(client::format_micro_time(at->wall));
}

json::value monotonic(const std::optional<Instant>& at) {
  if (!at) return nullptr;
  return std::chrono::duration<double>(at->monotonic.time_since_epoch()).count();
}

// The seconds of a delay request: ?seconds=N or a JSON body {"seconds": N}.
std::chrono::milliseconds requested_delay(const HttpRequest& request) {
  double seconds = -1;
  if (auto param = request.param("seconds")) {
    try {
      seconds = std::stod(std::string(*param));
    } catch (const std::exception&) {
      throw errors::bad_request(fmt::format("seconds must be a number, not \"{}\"", *param));
    }
  } else if (!request.body.empty()) {
    const auto body = parse_json_or_yaml(request.body);
    const auto* object = body.if_object();
    const auto* value = object != nullptr ? object->if_contains("seconds") : nullptr;
    if (value == nullptr || !value->is_number())
      throw errors::bad_request("the body must be a JSON object with a number \"seconds\"");
    seconds = value->to_number<double>();
  } else {
    throw errors::bad_request("say how long: ?seconds=N or a body {\"seconds\": N}");
  }
  if (!(seconds >= 0 && seconds <= 86400))
    throw errors::bad_request("seconds must be between 0 and 86400");
  return std::chrono::milliseconds(static_cast<std::int64_t>(seconds * 1000));
}

HttpResponse answer(const json::object& body) { return json_response(200, json::serialize(body)); }

}  // namespace

json::object to_json(const KubeletState& state) {
  return {{"node", state.node},
          {"alive", state.alive && !state.stopped_by_label},
          {"stoppedByLabel", state.stopped_by_label},
          {"stoppedAt", wall(state.stopped_at)},
          {"stoppedAtMonotonic", monotonic(state.stopped_at)},
          {"lastRenewal", wall(state.last_renewal)},
          {"lastRenewalMonotonic", monotonic(state.last_renewal)},
          {"lastRenewTime", state.last_renew_time.empty() ? json::value(nullptr)
                                                          : json::value(state.last_renew_time)},
          {"renewalDelaySeconds", std::chrono::duration<double>(state.renewal_delay).count()}};
}

AdminRoutes::Handler kubelet_admin(Cluster& cluster) {
  return [&cluster](const HttpRequest& request) -> HttpResponse {
    std::string_view rest = std::string_view(request.path).substr(kPrefix.size());
    if (rest.empty() || rest == "/") {
      if (request.method != "GET") throw errors::path_not_found();
      json::array items;
      for (const auto& state : cluster.kubelets()) items.push_back(to_json(state));
      return answer({{"kind", "KubeletList"}, {"items", std::move(items)}});
    }
    rest.remove_prefix(1);
    const auto slash = rest.find('/');
    const std::string node(rest.substr(0, slash));
    const std::string_view action = slash == std::string_view::npos ? "" : rest.substr(slash + 1);
    try {
      if (action.empty()) {
        if (request.method != "GET") throw errors::path_not_found();
        for (const auto& state : cluster.kubelets())
          if (state.node == node) return answer(to_json(state));
        throw std::out_of_range(node);
      }
      if (request.method != "POST") throw errors::path_not_found();
      if (action == "stop") return answer(to_json(cluster.stop_kubelet(node)));
      if (action == "start") return answer(to_json(cluster.start_kubelet(node)));
      if (action == "delay")
        return answer(to_json(cluster.delay_kubelet(node, requested_delay(request))));
    } catch (const std::out_of_range&) {
      throw errors::not_found(ResourceTypes::builtin().nodes, node);
    }
    throw errors::path_not_found();
  };
}

}  // namespace rg::sim
