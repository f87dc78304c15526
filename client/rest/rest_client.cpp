// RestClient: building each verb's request, and the one send loop every verb shares
// (rate limit, credentials, observer, retry after 429/503, error decoding).
#include "client/rest/rest_client.hpp"

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json.hpp>

#include <stdexcept>

#include "client/rest/api_error.hpp"
#include "client/rest/token_bucket.hpp"
#include "client/rest/warnings.hpp"
#include "client/transport/transport_error.hpp"

namespace rg::client {

namespace asio = boost::asio;
namespace json = boost::json;
using Clock = std::chrono::steady_clock;

namespace {

// Error bodies are small Status objects or a line of text.
constexpr std::size_t kErrorBodyLimit = 1 << 20;

// One request as the send loop sees it.
struct Call {
  std::string method;
  std::string target;
  std::string body;
  std::string content_type;
  OptionalTimeout timeout;
  ConnectionKind kind = ConnectionKind::kPooled;
  std::string accept = "application/json";
};

void require_namespace(const ResourceRef& resource, const char* verb) {
  if (resource.namespaced && resource.namespace_.empty()) {
    throw std::invalid_argument(std::string(verb) + " " + resource.group_resource() +
                                ": the resource is namespaced; give a namespace with .in(ns)");
  }
}

std::string object_path(const ResourceRef& resource, std::string_view name, const char* verb) {
  require_namespace(resource, verb);
  if (name.empty()) {
    throw std::invalid_argument(std::string(verb) + " " + resource.group_resource() +
                                ": an object name is required");
  }
  return resource.path(name);
}

std::string metadata_field(const json::value& object, std::string_view field) {
  if (const auto* meta = object.is_object() ? object.as_object().if_contains("metadata") : nullptr;
      meta != nullptr && meta->is_object()) {
    if (const auto* value = meta->as_object().if_contains(field); value && value->is_string()) {
      return std::string(value->as_string());
    }
  }
  return {};
}

Call patch_call(const ResourceRef& resource, const std::string& name, PatchType type,
                std::string patch, const PatchOptions& options) {
  return {"PATCH", object_path(resource, name, "patch") + to_query(options, type).str(),
          std::move(patch), std::string(content_type(type)), options.timeout};
}

json::value parse_json(const std::string& body, const Call& call) {
  json::error_code ec;
  auto value = json::parse(body, ec);
  if (ec) {
    throw std::runtime_error(call.method + " " + call.target +
                             ": the response is not JSON: " + ec.message());
  }
  return value;
}

}  // namespace

struct RestClient::Impl {
  Impl(RestConfig config_in, RestClientOptions options_in)
      : config(std::move(config_in)),
        options(std::move(options_in)),
        transport(config, options.transport),
        limiter(config.qps, config.burst) {}

  RestConfig config;
  RestClientOptions options;
  Transport transport;
  TokenBucket limiter;

  void observe(const std::string& method, int code, Clock::time_point started) const {
    if (options.observer) options.observer->on_result(method, code, Clock::now() - started);
  }

  void report_warnings(const HttpHeaders& headers) const {
    if (!options.observer) return;
    for (const auto& [name, value] : headers) {
      if (!equals_ignore_case(name, "Warning")) continue;
      for (const auto& text : parse_warnings(value)) options.observer->on_warning(text);
    }
  }

  // Sends `call` until it gets a 2xx header (returned with its unread body), a final error
  // answer (thrown as ApiError) or a transport failure (TransportError).
  asio::awaitable<BodyReader> execute(Call call) {
    const auto timeout = call.timeout.value_or(config.timeout);
    const Deadline deadline =
        timeout > std::chrono::milliseconds::zero() ? Clock::now() + timeout : kNoDeadline;
    HttpRequest request{call.method, call.target, {{"Accept", call.accept}}, call.body};
    if (!call.content_type.empty()) request.headers.emplace_back("Content-Type", call.content_type);
    const bool replayable = is_idempotent_method(call.method);
    for (int retries = 0;; ++retries) {
      co_await wait(limiter.acquire(), "the client-side rate limit");
      HttpRequest attempt = request;
      if (config.auth) {
        auto authorization = co_await config.auth->authorization();
        if (!authorization.empty()) attempt.headers.emplace_back("Authorization", authorization);
      }
      const auto started = Clock::now();
      BodyReader reader;
      try {
        reader = co_await transport.send(std::move(attempt), deadline, replayable, call.kind);
      } catch (const TransportError&) {
        observe(call.method, 0, started);
        throw;
      }
      const int status = reader.status();
      observe(call.method, status, started);
      report_warnings(reader.headers());
      if (status >= 200 && status < 300) co_return reader;

      const auto body = co_await reader.read_all(kErrorBodyLimit);
      if (status == 401 && config.auth) config.auth->invalidate();
      const std::string retry_after(reader.header("Retry-After"));
      const auto delay = retry_delay(options.retry, call.method, status, retry_after, retries);
      if (!delay || Clock::now() + *delay >= deadline) {
        throw make_api_error(status, body, retry_after);
      }
      co_await wait(sleep(*delay), "a retry (Retry-After)");
    }
  }

  static asio::awaitable<void> sleep(std::chrono::seconds delay) {
    asio::steady_timer timer(co_await asio::this_coro::executor, delay);
    co_await timer.async_wait(asio::use_awaitable);
  }

  // Awaits `pause`; cancellation during it becomes TransportError(kCancelled), as it does
  // during I/O, so callers see one kind of error for a cancelled call.
  static asio::awaitable<void> wait(asio::awaitable<void> pause, const char* what) {
    try {
      co_await std::move(pause);
    } catch (const boost::system::system_error& error) {
      if (error.code() != asio::error::operation_aborted) throw;
      throw TransportError(TransportErrorKind::kCancelled, error.code(),
                           std::string("cancelled while waiting for ") + what);
    }
  }

  asio::awaitable<std::string> execute_text(Call call) {
    auto reader = co_await execute(std::move(call));
    co_return co_await reader.read_all(Transport::kDefaultBodyLimit);
  }

  asio::awaitable<json::value> execute_json(Call call) {
    auto reader = co_await execute(call);
    const auto body = co_await reader.read_all(Transport::kDefaultBodyLimit);
    co_return parse_json(body, call);
  }

  // A watch's body must arrive within timeoutSeconds (plus slack), else the stream is dead.
  asio::awaitable<BodyReader> watch(Call call, std::optional<std::int64_t> timeout_seconds) {
    auto reader = co_await execute(std::move(call));
    reader.set_deadline(timeout_seconds ? Clock::now() + std::chrono::seconds(*timeout_seconds) +
                                              kWatchDeadlineSlack
                                        : kNoDeadline);
    co_return reader;
  }

  asio::awaitable<HttpResponse> raw(Call call) {
    auto reader = co_await execute(std::move(call));
    co_return co_await reader.read_response(Transport::kDefaultBodyLimit);
  }
};

RestClient::RestClient(RestConfig config, RestClientOptions options)
    : impl_(std::make_unique<Impl>(std::move(config), std::move(options))) {}

RestClient::~RestClient() = default;

const RestConfig& RestClient::config() const { return impl_->config; }

TransportStats RestClient::transport_stats() const { return impl_->transport.stats(); }

// The verbs build their Call before returning, and are not coroutines themselves: g++ 12
// destroys a defaulted by-value coroutine argument twice, and the options arguments default.

asio::awaitable<json::value> RestClient::get(const ResourceRef& resource, const std::string& name,
                                             const GetOptions& options) {
  Call call{
      "GET", object_path(resource, name, "get") + to_query(options).str(), {}, {}, options.timeout};
  return impl_->execute_json(std::move(call));
}

asio::awaitable<json::value> RestClient::list(const ResourceRef& resource,
                                              const ListOptions& options) {
  Call call{"GET", resource.path() + to_query(options).str(), {}, {}, options.timeout};
  return impl_->execute_json(std::move(call));
}

asio::awaitable<BodyReader> RestClient::list_stream(const ResourceRef& resource,
                                                    const ListOptions& options) {
  Call call{"GET", resource.path() + to_query(options).str(), {}, {}, options.timeout};
  return impl_->execute(std::move(call));
}

asio::awaitable<BodyReader> RestClient::watch(const ResourceRef& resource,
                                              const WatchOptions& options) {
  Call call{"GET",
            resource.path() + to_query(options).str(),
            {},
            {},
            options.timeout,
            ConnectionKind::kDedicated};
  return impl_->watch(std::move(call), options.timeout_seconds);
}

asio::awaitable<json::value> RestClient::create(const ResourceRef& resource,
                                                const json::value& object,
                                                const CreateOptions& options) {
  require_namespace(resource, "create");
  Call call{"POST", resource.path() + to_query(options).str(), json::serialize(object),
            "application/json", options.timeout};
  return impl_->execute_json(std::move(call));
}

asio::awaitable<json::value> RestClient::update(const ResourceRef& resource,
                                                const json::value& object,
                                                const UpdateOptions& options) {
  const auto name = metadata_field(object, "name");
  Call call{"PUT", object_path(resource, name, "update") + to_query(options).str(),
            json::serialize(object), "application/json", options.timeout};
  return impl_->execute_json(std::move(call));
}

asio::awaitable<json::value> RestClient::patch(const ResourceRef& resource, const std::string& name,
                                               PatchType type, std::string patch,
                                               const PatchOptions& options) {
  Call call = patch_call(resource, name, type, std::move(patch), options);
  return impl_->execute_json(std::move(call));
}

asio::awaitable<std::string> RestClient::patch_text(const ResourceRef& resource,
                                                    const std::string& name, PatchType type,
                                                    std::string patch,
                                                    const PatchOptions& options) {
  Call call = patch_call(resource, name, type, std::move(patch), options);
  return impl_->execute_text(std::move(call));
}

asio::awaitable<json::value> RestClient::remove(const ResourceRef& resource,
                                                const std::string& name,
                                                const DeleteOptions& options) {
  auto body = delete_body(options);
  auto content = body.empty() ? std::string() : std::string("application/json");
  Call call{"DELETE", object_path(resource, name, "delete"), std::move(body), std::move(content),
            options.timeout};
  return impl_->execute_json(std::move(call));
}

asio::awaitable<HttpResponse> RestClient::raw(RawRequest request) {
  Call call{request.method, request.path, std::move(request.body), std::move(request.content_type),
            request.timeout};
  if (!request.accept.empty()) call.accept = std::move(request.accept);
  return impl_->raw(std::move(call));
}

}  // namespace rg::client
