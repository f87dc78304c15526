// Fault injection and its admin endpoint.
#include "sim/faults.hpp"

#include <fmt/format.h>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json.hpp>

#include "sim/api_error.hpp"
#include "sim/body.hpp"
#include "sim/responses.hpp"

namespace rg::sim {
namespace {

namespace json = boost::json;

using SteadyClock = std::chrono::steady_clock;

double seconds_until(SteadyClock::time_point until) {
  return std::max(0.0, std::chrono::duration<double>(until - SteadyClock::now()).count());
}

const char* to_string(OutageMode mode) { return mode == OutageMode::stall ? "stall" : "fail"; }

json::object to_json(const ClientScope& scope) {
  return {{"user", scope.user},
          {"userAgentPrefix", scope.user_agent_prefix},
          {"userAgentContains", scope.user_agent_contains}};
}

json::object to_json(const FaultConfig& config) {
  return {{"errorRate", config.error_rate},
          {"errorCode", config.error_code},
          {"retryAfterSeconds", config.retry_after_seconds},
          {"latencyMs", config.latency_ms},
          {"latencyJitterMs", config.latency_jitter_ms},
          {"scope", to_json(config.scope)}};
}

std::string string_field(const json::object& object, std::string_view key) {
  const auto* value = object.if_contains(key);
  if (value == nullptr) return {};
  if (!value->is_string()) throw errors::bad_request(fmt::format("{} must be a string", key));
  return std::string(value->get_string());
}

OutageMode mode_param(const HttpRequest& request) {
  const auto mode = request.param("mode");
  if (!mode || *mode == "fail") return OutageMode::fail;
  if (*mode == "stall") return OutageMode::stall;
  throw errors::bad_request(fmt::format("mode must be fail or stall, not \"{}\"", *mode));
}

std::chrono::milliseconds seconds_param(const HttpRequest& request) {
  const auto value = request.param("seconds");
  if (!value) throw errors::bad_request("say how long: ?seconds=N");
  char* end = nullptr;
  const std::string text(*value);
  const double seconds = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !(seconds >= 0 && seconds <= 86400))
    throw errors::bad_request(
        fmt::format("seconds must be a number from 0 to 86400, not \"{}\"", text));
  return std::chrono::milliseconds(static_cast<std::int64_t>(seconds * 1000));
}

ApiError unavailable() {
  return errors::service_unavailable(
      "the control plane is unreachable for this client (injected by kube-sim)");
}

FaultConfig from_json(const json::object& object, FaultConfig config) {
  auto number = [&](std::string_view key) -> std::optional<double> {
    const auto* value = object.if_contains(key);
    if (value == nullptr) return std::nullopt;
    if (!value->is_number()) throw errors::bad_request(fmt::format("{} must be a number", key));
    return value->to_number<double>();
  };
  if (auto v = number("errorRate")) config.error_rate = std::clamp(*v, 0.0, 1.0);
  if (auto v = number("errorCode")) config.error_code = static_cast<int>(*v);
  if (auto v = number("retryAfterSeconds")) config.retry_after_seconds = static_cast<int>(*v);
  if (auto v = number("latencyMs")) config.latency_ms = static_cast<int>(*v);
  if (auto v = number("latencyJitterMs")) config.latency_jitter_ms = static_cast<int>(*v);
  if (const auto* scope = object.if_contains("scope")) {
    if (!scope->is_object())
      throw errors::bad_request(
          "scope must be an object: {\"user\", \"userAgentPrefix\", \"userAgentContains\"}");
    const auto& fields = scope->get_object();
    config.scope = {string_field(fields, "user"), string_field(fields, "userAgentPrefix"),
                    string_field(fields, "userAgentContains")};
  }
  if (config.latency_ms < 0 || config.latency_jitter_ms < 0)
    throw errors::bad_request("latencyMs and latencyJitterMs must not be negative");
  if (config.error_code != 429 && config.error_code != 500 && config.error_code != 503)
    throw errors::bad_request("errorCode must be 429, 500 or 503");
  return config;
}

ApiError injected(const FaultConfig& config) {
  if (config.error_code == 429)
    return errors::too_many_requests("injected by kube-sim", config.retry_after_seconds);
  if (config.error_code == 500) return errors::internal("injected by kube-sim");
  client::Status status;
  status.status = "Failure";
  status.code = 503;
  status.reason = "ServiceUnavailable";
  status.message = "injected by kube-sim";
  status.details = client::StatusDetails{};
  status.details->retry_after_seconds = config.retry_after_seconds;
  return ApiError(std::move(status));
}

}  // namespace

Faults::Faults(Store& store, std::function<void()> close_connections)
    : store_(store), close_connections_(std::move(close_connections)) {}

FaultConfig Faults::config() const {
  std::lock_guard lock(mutex_);
  return config_;
}

void Faults::set_config(const FaultConfig& config) {
  std::lock_guard lock(mutex_);
  config_ = config;
}

bool ClientScope::matches(std::string_view request_user, std::string_view user_agent) const {
  return (user.empty() || user == request_user) &&
         (user_agent_prefix.empty() || user_agent.starts_with(user_agent_prefix)) &&
         (user_agent_contains.empty() || user_agent.find(user_agent_contains) != user_agent.npos);
}

bool ClientScope::everyone() const {
  return user.empty() && user_agent_prefix.empty() && user_agent_contains.empty();
}

void Faults::control_plane_outage(std::chrono::milliseconds duration, OutageMode mode) {
  std::lock_guard lock(mutex_);
  outage_until_ = SteadyClock::now() + duration;
  outage_mode_ = mode;
}

void Faults::partition(std::string user, std::string user_agent_prefix,
                       std::chrono::milliseconds duration, OutageMode mode) {
  partition(ClientScope{std::move(user), std::move(user_agent_prefix), {}}, duration, mode);
}

void Faults::partition(ClientScope client, std::chrono::milliseconds duration, OutageMode mode) {
  std::lock_guard lock(mutex_);
  partitions_.push_back({std::move(client), SteadyClock::now() + duration, mode});
}

void Faults::heal() {
  std::lock_guard lock(mutex_);
  outage_until_ = {};
  partitions_.clear();
}

bool Faults::reachable(std::string_view user, std::string_view user_agent) const {
  std::lock_guard lock(mutex_);
  const auto now = SteadyClock::now();
  if (now < outage_until_) return false;
  for (const auto& partition : partitions_)
    if (now < partition.until && partition.client.matches(user, user_agent)) return false;
  return true;
}

void Faults::stall(std::chrono::milliseconds duration) {
  std::lock_guard lock(mutex_);
  stalled_until_ = std::chrono::steady_clock::now() + duration;
}

boost::asio::awaitable<bool> Faults::serve_admin(HttpRequest& request, ResponseStream& stream) {
  const std::string& path = request.path;
  const std::string& method = request.method;
  auto ok = [&] {
    json::object body = to_json(config());
    std::lock_guard lock(mutex_);
    body["controlPlaneOutageSeconds"] = seconds_until(outage_until_);
    body["controlPlaneOutageMode"] = to_string(outage_mode_);
    json::array partitions;
    for (const auto& partition : partitions_) {
      if (SteadyClock::now() >= partition.until) continue;
      json::object item = to_json(partition.client);  // user, userAgentPrefix, userAgentContains
      item["seconds"] = seconds_until(partition.until);
      item["mode"] = to_string(partition.mode);
      partitions.push_back(std::move(item));
    }
    body["partitions"] = std::move(partitions);
    return json_response(200, json::serialize(body));
  };
  if (path == "/sim/faults") {
    if (method == "PUT" || method == "POST") {
      auto body = parse_json_or_yaml(request.body);
      if (!body.is_object()) throw errors::bad_request("the body must be a JSON object");
      set_config(from_json(body.get_object(), config()));
    } else if (method == "DELETE") {
      set_config({});
      stall(std::chrono::milliseconds(0));
      heal();
    }
    HttpResponse response = ok();
    co_await stream.send(response);
    co_return true;
  }
  if (method != "POST") throw errors::path_not_found();
  if (path == "/sim/faults/drop-watches") {
    drop_watches();
  } else if (path == "/sim/faults/compact") {
    compact();
  } else if (path == "/sim/faults/stall") {
    double seconds = 0;
    if (auto s = request.param("seconds")) seconds = std::strtod(std::string(*s).c_str(), nullptr);
    stall(std::chrono::milliseconds(static_cast<std::int64_t>(seconds * 1000)));
  } else if (path == "/sim/faults/outage") {
    control_plane_outage(seconds_param(request), mode_param(request));
  } else if (path == "/sim/faults/partition") {
    ClientScope client{std::string(request.param("user").value_or("")),
                       std::string(request.param("userAgent").value_or("")),
                       std::string(request.param("userAgentContains").value_or(""))};
    if (client.everyone())
      throw errors::bad_request(
          "name the identity: ?user=NAME, ?userAgent=PREFIX and/or ?userAgentContains=TEXT");
    partition(std::move(client), seconds_param(request), mode_param(request));
  } else if (path == "/sim/faults/heal") {
    heal();
  } else if (path == "/sim/faults/close-connections") {
    HttpResponse response = ok();
    co_await stream.send(response);
    close_connections();
    co_return true;
  } else {
    throw errors::path_not_found();
  }
  HttpResponse response = ok();
  co_await stream.send(response);
  co_return true;
}

boost::asio::awaitable<bool> Faults::intercept(HttpRequest& request, ResponseStream& stream) {
  if (request.path.starts_with("/sim/")) co_return co_await serve_admin(request, stream);
  FaultConfig config;
  std::chrono::steady_clock::time_point stalled_until;
  bool fail = false;
  bool cut_off = false;  // an outage or partition that fails the request
  {
    std::lock_guard lock(mutex_);
    config = config_;
    stalled_until = stalled_until_;
    const auto now = SteadyClock::now();
    auto cut = [&](SteadyClock::time_point until, OutageMode mode) {
      if (mode == OutageMode::stall)
        stalled_until = std::max(stalled_until, until);
      else
        cut_off = true;
    };
    if (now < outage_until_) cut(outage_until_, outage_mode_);
    const std::string_view user_agent = request.header("user-agent");
    for (const auto& partition : partitions_)
      if (now < partition.until && partition.client.matches(request.user, user_agent))
        cut(partition.until, partition.mode);
    if (config.scope.matches(request.user, user_agent)) {
      if (config.error_rate > 0)
        fail = std::uniform_real_distribution<double>(0, 1)(random_) < config.error_rate;
      if (config.latency_jitter_ms > 0)
        config.latency_ms +=
            std::uniform_int_distribution<int>(0, config.latency_jitter_ms)(random_);
    } else {
      config.latency_ms = 0;
    }
  }
  auto wait_until = std::max(stalled_until, std::chrono::steady_clock::now() +
                                                std::chrono::milliseconds(config.latency_ms));
  if (wait_until > std::chrono::steady_clock::now()) {
    boost::asio::steady_timer timer(stream.executor(), wait_until);
    co_await timer.async_wait(boost::asio::use_awaitable);
  }
  if (cut_off) throw unavailable();
  if (fail) throw injected(config);
  co_return false;
}

}  // namespace rg::sim
