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

json::object to_json(const FaultConfig& config) {
  return {{"errorRate", config.error_rate},
          {"errorCode", config.error_code},
          {"retryAfterSeconds", config.retry_after_seconds},
          {"latencyMs", config.latency_ms}};
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

void Faults::stall(std::chrono::milliseconds duration) {
  std::lock_guard lock(mutex_);
  stalled_until_ = std::chrono::steady_clock::now() + duration;
}

boost::asio::awaitable<bool> Faults::serve_admin(HttpRequest& request, ResponseStream& stream) {
  const std::string& path = request.path;
  const std::string& method = request.method;
  auto ok = [&] { return json_response(200, json::serialize(to_json(config()))); };
  if (path == "/sim/faults") {
    if (method == "PUT" || method == "POST") {
      auto body = parse_json_or_yaml(request.body);
      if (!body.is_object()) throw errors::bad_request("the body must be a JSON object");
      set_config(from_json(body.get_object(), config()));
    } else if (method == "DELETE") {
      set_config({});
      stall(std::chrono::milliseconds(0));
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
  {
    std::lock_guard lock(mutex_);
    config = config_;
    stalled_until = stalled_until_;
    if (config.error_rate > 0)
      fail = std::uniform_real_distribution<double>(0, 1)(random_) < config.error_rate;
  }
  auto wait_until = std::max(stalled_until, std::chrono::steady_clock::now() +
                                                std::chrono::milliseconds(config.latency_ms));
  if (wait_until > std::chrono::steady_clock::now()) {
    boost::asio::steady_timer timer(stream.executor(), wait_until);
    co_await timer.async_wait(boost::asio::use_awaitable);
  }
  if (fail) throw injected(config);
  co_return false;
}

}  // namespace rg::sim
