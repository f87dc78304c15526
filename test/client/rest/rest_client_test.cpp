// Integration tests of RestClient against the scriptable test server: each verb's wire request,
// error decoding, retries after 429/503, credentials, the observer, and streamed watch/list.
#include "client/rest/rest_client.hpp"

#include <doctest/doctest.h>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/json.hpp>

#include <map>
#include <sstream>
#include <utility>
#include <vector>

#include "client/rest/api_error.hpp"
#include "client/transport/transport_error.hpp"
#include "test/client/transport/test_server.hpp"

namespace asio = boost::asio;
namespace json = boost::json;
using namespace rg::client;
using rg::test::run;
using rg::test::ServerRequest;
using rg::test::ServerSession;
using rg::test::TestServer;

namespace {

struct Answer {
  int status = 200;
  std::string body = "{}";
  HttpHeaders headers;
};

// Records every request and answers request i with answers[i] (the last answer repeats).
struct Script {
  std::vector<ServerRequest> requests;
  std::vector<Answer> answers{Answer{}};

  TestServer::Handler handler() {
    return [this](ServerSession& session, ServerRequest request) -> asio::awaitable<void> {
      requests.push_back(std::move(request));
      Answer answer = answers[std::min(requests.size(), answers.size()) - 1];
      co_await session.respond(answer.status, std::move(answer.body), std::move(answer.headers));
    };
  }
};

struct Fixture {
  asio::io_context io;
  Script script;
  TestServer server{io, script.handler()};

  RestConfig config() const {
    RestConfig config;
    config.host = server.url();
    return config;
  }
};

std::string status_json(int code, std::string_view reason, std::string_view message) {
  Status status;
  status.status = "Failure";
  status.code = code;
  status.reason = std::string(reason);
  status.message = std::string(message);
  return json::serialize(to_json(status));
}

// Runs `task` and returns the exception it ends with.
template <class T>
std::exception_ptr failure(asio::io_context& io, asio::awaitable<T> task) {
  try {
    run(io, std::move(task));
  } catch (...) {
    return std::current_exception();
  }
  FAIL("the call succeeded");
  return nullptr;
}

// Applies `predicate` to the exception in `error`.
bool holds(std::exception_ptr error, bool (*predicate)(const std::exception&)) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return predicate(e);
  }
}

class StubAuth : public AuthProvider {
 public:
  asio::awaitable<std::string> authorization() override {
    co_return "Bearer token-" + std::to_string(generation_);
  }
  void invalidate() override { ++generation_; }
  int generation() const { return generation_; }

 private:
  int generation_ = 1;
};

class CountingObserver : public RequestObserver {
 public:
  void on_result(std::string_view method, int code, std::chrono::nanoseconds) override {
    ++counts[{std::string(method), code_label(code)}];
  }
  void on_warning(std::string_view text) override { warnings.emplace_back(text); }
  std::map<std::pair<std::string, std::string>, int> counts;
  std::vector<std::string> warnings;
};

}  // namespace

TEST_CASE_FIXTURE(Fixture, "get: namespaced object by name, JSON accepted and returned") {
  script.answers = {{200, R"({"kind":"Deployment","metadata":{"name":"web"}})", {}}};
  RestClient client(config());
  const auto deployments = resources::deployments().in("default");
  const auto object = run(io, client.get(deployments, "web"));
  CHECK(object.at("metadata").at("name") == "web");
  REQUIRE(script.requests.size() == 1);
  CHECK(script.requests[0].method == "GET");
  CHECK(script.requests[0].target == "/apis/apps/v1/namespaces/default/deployments/web");
  CHECK(script.requests[0].header("Accept") == "application/json");
  CHECK(script.requests[0].header("Authorization").empty());
}

TEST_CASE_FIXTURE(Fixture, "get: cluster-scoped objects, and resourceVersion") {
  RestClient client(config());
  const auto nodes = resources::nodes();
  GetOptions options;
  options.resource_version = "0";
  run(io, client.get(nodes, "node-1", options));
  CHECK(script.requests.at(0).target == "/api/v1/nodes/node-1?resourceVersion=0");
}

TEST_CASE_FIXTURE(Fixture, "single-object verbs on a namespaced resource need a namespace") {
  RestClient client(config());
  const auto pods = resources::pods();
  // Refused by the call itself, before an awaitable exists.
  CHECK_THROWS_WITH_AS(client.get(pods, "p"), doctest::Contains("namespaced"),
                       std::invalid_argument);
  CHECK(script.requests.empty());
}

TEST_CASE_FIXTURE(Fixture, "list: selectors and paging are URL-encoded in the query") {
  script.answers = {{200, R"({"kind":"PodList","metadata":{"continue":"c2"},"items":[]})", {}}};
  RestClient client(config());
  const auto pods = resources::pods().in("default");
  ListOptions options;
  options.label_selector = "app in (web, api),tier!=db";
  options.field_selector = "spec.nodeName=node-1";
  options.limit = 500;
  options.continue_ = "c1";
  const auto list = run(io, client.list(pods, options));
  CHECK(list.at("metadata").at("continue") == "c2");
  CHECK(script.requests.at(0).target ==
        "/api/v1/namespaces/default/pods?continue=c1&fieldSelector=spec.nodeName%3Dnode-1&"
        "labelSelector=app%20in%20%28web%2C%20api%29%2Ctier%21%3Ddb&limit=500");
}

TEST_CASE_FIXTURE(Fixture, "create: POST of the JSON object with its query options") {
  script.answers = {{201, R"({"metadata":{"name":"cm1","uid":"u1"}})", {}}};
  RestClient client(config());
  const auto config_maps = resources::config_maps().in("ns");
  const json::value object = json::parse(R"({"metadata":{"name":"cm1"},"data":{"k":"v"}})");
  CreateOptions options;
  options.field_manager = "replica-guard";
  const auto created = run(io, client.create(config_maps, object, options));
  CHECK(created.at("metadata").at("uid") == "u1");
  const auto& request = script.requests.at(0);
  CHECK(request.method == "POST");
  CHECK(request.target == "/api/v1/namespaces/ns/configmaps?fieldManager=replica-guard");
  CHECK(request.header("Content-Type") == "application/json");
  CHECK(json::parse(request.body) == object);
}

TEST_CASE_FIXTURE(Fixture, "update: PUT to the object's name; a stale resourceVersion conflicts") {
  script.answers = {{409,
                     status_json(409, reason::kConflict,
                                 "Operation cannot be fulfilled on deployments.apps \"web\": the "
                                 "object has been modified; please apply your changes to the "
                                 "latest version and try again"),
                     {}}};
  RestClient client(config());
  const auto deployments = resources::deployments().in("default");
  const json::value object =
      json::parse(R"({"metadata":{"name":"web","resourceVersion":"41"},"spec":{"replicas":2}})");
  const auto error = failure(io, client.update(deployments, object));
  CHECK(holds(error, is_conflict));
  CHECK(holds(error, [](const std::exception& e) {
    return std::string(e.what()).find("the object has been modified") != std::string::npos;
  }));
  const auto& request = script.requests.at(0);
  CHECK(request.method == "PUT");
  CHECK(request.target == "/apis/apps/v1/namespaces/default/deployments/web");
  CHECK(json::parse(request.body).at("metadata").at("resourceVersion") == "41");
  // A 409 is final: not retried.
  CHECK(script.requests.size() == 1);

  const json::value nameless = json::parse(R"({"metadata":{}})");
  CHECK_THROWS_WITH_AS(client.update(deployments, nameless), doctest::Contains("name is required"),
                       std::invalid_argument);
}

TEST_CASE_FIXTURE(Fixture, "patch: merge patch of the scale subresource") {
  script.answers = {{200, R"({"kind":"Scale","spec":{"replicas":3}})", {}}};
  RestClient client(config());
  const auto scale = resources::deployments().in("default").sub("scale");
  const auto result =
      run(io, client.patch(scale, "web", PatchType::kMerge, R"({"spec":{"replicas":3}})"));
  CHECK(result.at("spec").at("replicas") == 3);
  const auto& request = script.requests.at(0);
  CHECK(request.method == "PATCH");
  CHECK(request.target == "/apis/apps/v1/namespaces/default/deployments/web/scale");
  CHECK(request.header("Content-Type") == "application/merge-patch+json");
  CHECK(request.body == R"({"spec":{"replicas":3}})");
}

TEST_CASE_FIXTURE(Fixture, "patch_text: the same request, the answer as its JSON text") {
  const std::string answer =
      R"({"kind":"Deployment","metadata":{"name":"web","resourceVersion":"12"},"spec":{}})";
  script.answers = {{200, answer, {}}, {409, status_json(409, "Conflict", "stale"), {}}};
  RestClient client(config());
  const auto deployments = resources::deployments().in("default");
  PatchOptions options;
  options.field_manager = "replica-guard";
  const std::string patch = R"({"metadata":{"annotations":{"a":"b"}}})";
  CHECK(run(io, client.patch_text(deployments, "web", PatchType::kMerge, patch, options)) ==
        answer);
  const auto& request = script.requests.at(0);
  CHECK(request.method == "PATCH");
  CHECK(request.target ==
        "/apis/apps/v1/namespaces/default/deployments/web?fieldManager=replica-guard");
  CHECK(request.header("Content-Type") == "application/merge-patch+json");
  CHECK(request.body == patch);
  const auto error =
      failure(io, client.patch_text(deployments, "web", PatchType::kMerge, patch, options));
  CHECK(holds(error, is_conflict));
}

TEST_CASE_FIXTURE(Fixture, "patch: server-side apply, JSON patch and strategic merge") {
  RestClient client(config());
  const auto deployments = resources::deployments().in("default");
  PatchOptions apply;
  apply.field_manager = "replica-guard";
  apply.force = true;
  run(io, client.patch(deployments, "web", PatchType::kApply,
                       R"({"apiVersion":"apps/v1","kind":"Deployment"})", apply));
  CHECK(script.requests.at(0).target ==
        "/apis/apps/v1/namespaces/default/deployments/web?fieldManager=replica-guard&force=true");
  CHECK(script.requests.at(0).header("Content-Type") == "application/apply-patch+yaml");

  run(io, client.patch(deployments, "web", PatchType::kJson,
                       R"([{"op":"replace","path":"/spec/replicas","value":4}])"));
  CHECK(script.requests.at(1).header("Content-Type") == "application/json-patch+json");
  const auto pod_status = resources::pods().in("default").sub("status");
  run(io, client.patch(pod_status, "p", PatchType::kStrategicMerge, R"({"status":{}})"));
  CHECK(script.requests.at(2).target == "/api/v1/namespaces/default/pods/p/status");
  CHECK(script.requests.at(2).header("Content-Type") == "application/strategic-merge-patch+json");

  // Apply without a field manager is refused before sending.
  CHECK_THROWS_WITH_AS(client.patch(deployments, "web", PatchType::kApply, "{}"),
                       doctest::Contains("field_manager"), std::invalid_argument);
  CHECK(script.requests.size() == 3);
}

TEST_CASE_FIXTURE(Fixture, "delete: preconditions and propagation policy in the body") {
  script.answers = {
      {200, R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success"})", {}}};
  RestClient client(config());
  const auto pods = resources::pods().in("default");
  DeleteOptions options;
  options.preconditions.uid = "uid-1";
  options.preconditions.resource_version = "7";
  options.propagation_policy = std::string(propagation::kBackground);
  const auto result = run(io, client.remove(pods, "p", options));
  CHECK(result.at("status") == "Success");
  const auto& request = script.requests.at(0);
  CHECK(request.method == "DELETE");
  CHECK(request.target == "/api/v1/namespaces/default/pods/p");
  CHECK(request.header("Content-Type") == "application/json");
  const auto body = json::parse(request.body);
  CHECK(body.at("kind") == "DeleteOptions");
  CHECK(body.at("preconditions").at("uid") == "uid-1");
  CHECK(body.at("preconditions").at("resourceVersion") == "7");
  CHECK(body.at("propagationPolicy") == "Background");
}

TEST_CASE_FIXTURE(Fixture, "errors: a Status body becomes a typed ApiError with its details") {
  Status status;
  status.status = "Failure";
  status.code = 404;
  status.reason = "NotFound";
  status.message = "deployments.apps \"web\" not found";
  status.details = StatusDetails{"web", "apps", "deployments", "", {}, 0};
  script.answers = {{404, json::serialize(to_json(status)), {}}};
  RestClient client(config());
  const auto deployments = resources::deployments().in("default");
  try {
    run(io, client.get(deployments, "web"));
    FAIL("expected NotFound");
  } catch (const ApiError& error) {
    CHECK(is_not_found(error));
    CHECK(error.code() == 404);
    CHECK(error.status() == status);
    CHECK(std::string(error.what()) == "deployments.apps \"web\" not found (NotFound)");
  }
}

TEST_CASE_FIXTURE(Fixture, "errors: a plain-text answer is still a typed error with its text") {
  script.answers = {{403, "forbidden: no\n", {{"Content-Type", "text/plain"}}}};
  RestClient client(config());
  const auto nodes = resources::nodes();
  try {
    run(io, client.list(nodes));
    FAIL("expected Forbidden");
  } catch (const ApiError& error) {
    CHECK(is_forbidden(error));
    CHECK(error.message() == "forbidden: no");
  }
}

TEST_CASE_FIXTURE(Fixture, "retries: 429 with Retry-After is retried, for writes too") {
  const Answer throttled{429,
                         "Too many requests, please try again later.\n",
                         {{"Retry-After", "0"}, {"Content-Type", "text/plain"}}};
  script.answers = {throttled, throttled, {200, R"({"ok":true})", {}}};
  RestClient client(config());
  const auto config_maps = resources::config_maps().in("ns");
  const json::value object = json::parse(R"({"metadata":{"name":"x"}})");
  CHECK(run(io, client.create(config_maps, object)).at("ok") == true);
  CHECK(script.requests.size() == 3);
  for (const auto& request : script.requests) CHECK(request.body == json::serialize(object));
}

TEST_CASE_FIXTURE(Fixture, "retries: 503 with Retry-After is retried for GET but not for POST") {
  const Answer unavailable{
      503, status_json(503, reason::kServiceUnavailable, "try later"), {{"Retry-After", "0"}}};
  RestClient client(config());
  const auto config_maps = resources::config_maps().in("ns");

  SUBCASE("GET") {
    script.answers = {unavailable, {200, "{}", {}}};
    run(io, client.get(config_maps, "x"));
    CHECK(script.requests.size() == 2);
  }
  SUBCASE("POST") {
    script.answers = {unavailable, {200, "{}", {}}};
    const json::value object = json::parse(R"({"metadata":{"name":"x"}})");
    CHECK(holds(failure(io, client.create(config_maps, object)), is_service_unavailable));
    CHECK(script.requests.size() == 1);
  }
}

TEST_CASE_FIXTURE(Fixture, "retries: capped by max_retries, and never past the deadline") {
  script.answers = {
      {429, status_json(429, reason::kTooManyRequests, "slow down"), {{"Retry-After", "0"}}}};
  const auto config_maps = resources::config_maps().in("ns");

  SUBCASE("max_retries") {
    RestClientOptions options;
    options.retry.max_retries = 2;
    RestClient client(config(), options);
    CHECK(holds(failure(io, client.get(config_maps, "x")), is_too_many_requests));
    CHECK(script.requests.size() == 3);
  }
  SUBCASE("a Retry-After longer than the time left fails at once") {
    script.answers[0].headers = {{"Retry-After", "5"}};
    RestClient client(config());
    GetOptions options;
    options.timeout = std::chrono::seconds(1);
    const auto error = failure(io, client.get(config_maps, "x", options));
    CHECK(holds(error, is_too_many_requests));
    try {
      std::rethrow_exception(error);
    } catch (const ApiError& api) {
      CHECK(api.retry_after() == std::chrono::seconds(5));
    }
    CHECK(script.requests.size() == 1);
  }
}

TEST_CASE_FIXTURE(Fixture, "auth: bearer token on every request, invalidated after a 401") {
  auto auth = std::make_shared<StubAuth>();
  script.answers = {{401, status_json(401, reason::kUnauthorized, "Unauthorized"), {}},
                    {200, "{}", {}}};
  auto config = this->config();
  config.auth = auth;
  RestClient client(config);
  const auto pods = resources::pods().in("default");
  CHECK(holds(failure(io, client.get(pods, "p")), is_unauthorized));
  CHECK(auth->generation() == 2);
  run(io, client.get(pods, "p"));
  REQUIRE(script.requests.size() == 2);
  CHECK(script.requests[0].header("Authorization") == "Bearer token-1");
  CHECK(script.requests[1].header("Authorization") == "Bearer token-2");
}

TEST_CASE_FIXTURE(Fixture, "observer: one result per attempt, code and method") {
  script.answers = {{429, "", {{"Retry-After", "0"}}}, {200, "{}", {}}};
  auto observer = std::make_shared<CountingObserver>();
  RestClientOptions options;
  options.observer = observer;
  RestClient client(config(), options);
  const auto pods = resources::pods().in("default");
  run(io, client.get(pods, "p"));
  CHECK(observer->counts[{"GET", "429"}] == 1);
  CHECK(observer->counts[{"GET", "200"}] == 1);

  RestConfig unreachable;
  {
    asio::ip::tcp::acceptor closed(io, {asio::ip::make_address("127.0.0.1"), 0});
    unreachable.host = "http://127.0.0.1:" + std::to_string(closed.local_endpoint().port());
  }
  RestClient refused(unreachable, options);
  CHECK(holds(failure(io, refused.get(pods, "p")), is_transport_error));
  CHECK(observer->counts[{"GET", "<error>"}] == 1);
}

TEST_CASE("watch: events split across many chunks arrive as a stream; the query is complete") {
  asio::io_context io;
  ServerRequest seen;
  const std::string events =
      R"({"type":"ADDED","object":{"kind":"Pod","metadata":{"name":"a","resourceVersion":"5"}}})"
      "\n"
      R"({"type":"BOOKMARK","object":{"kind":"Pod","metadata":{"resourceVersion":"6","annotations":{"k8s.io/initial-events-end":"true"}}}})"
      "\n";
  TestServer server(io,
                    [&](ServerSession& session, ServerRequest request) -> asio::awaitable<void> {
                      seen = std::move(request);
                      co_await session.write_raw(
                          "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: "
                          "chunked\r\n\r\n");
                      // 7-byte chunks: events are cut mid-token and mid-line.
                      for (std::size_t at = 0; at < events.size(); at += 7) {
                        const auto piece = events.substr(at, 7);
                        std::ostringstream chunk;
                        chunk << std::hex << piece.size() << "\r\n" << piece << "\r\n";
                        co_await session.write_raw(chunk.str());
                      }
                      co_await session.write_raw("0\r\n\r\n");
                    });
  RestConfig config;
  config.host = server.url();
  RestClient client(config);
  const auto pods = resources::pods().in("default");
  WatchOptions options;
  options.allow_watch_bookmarks = true;
  options.send_initial_events = true;
  options.resource_version_match = "NotOlderThan";
  options.label_selector = "app=web";
  options.timeout_seconds = 300;
  auto stream = run(io, client.watch(pods, options));
  CHECK(seen.target ==
        "/api/v1/namespaces/default/pods?allowWatchBookmarks=true&labelSelector=app%3Dweb&"
        "resourceVersionMatch=NotOlderThan&sendInitialEvents=true&timeoutSeconds=300&watch=true");
  std::string received;
  int pieces = 0;
  for (;;) {
    const auto piece = run(io, stream.read_some());
    if (piece.empty()) break;
    received += piece;
    ++pieces;
  }
  CHECK(received == events);
  CHECK(pieces >= 1);
  CHECK(client.transport_stats().open == 0);  // the watch had its own connection
}

TEST_CASE_FIXTURE(Fixture, "watch: an error answer before the stream is a typed error") {
  script.answers = {
      {410, status_json(410, reason::kExpired, "too old resource version: 1 (5)"), {}}};
  RestClient client(config());
  const auto pods = resources::pods();
  WatchOptions options;
  options.resource_version = "1";
  CHECK(holds(failure(io, client.watch(pods, options)), is_gone));
  CHECK(script.requests.at(0).target == "/api/v1/pods?resourceVersion=1&watch=true");
}

TEST_CASE_FIXTURE(Fixture,
                  "list_stream: a large list is read piece by piece, then the pool reuses "
                  "the connection") {
  std::string list = R"({"kind":"PodList","metadata":{"resourceVersion":"9"},"items":[)";
  for (int i = 0; i < 5000; ++i) {
    list += (i ? "," : "") + std::string(R"({"metadata":{"name":"pod-)") + std::to_string(i) +
            R"(","namespace":"default"}})";
  }
  list += "]}";
  script.answers = {{200, list, {}}};
  RestClient client(config());
  const auto pods = resources::pods();
  auto stream = run(io, client.list_stream(pods));
  std::string received;
  int pieces = 0;
  for (;;) {
    const auto piece = run(io, stream.read_some());
    if (piece.empty()) break;
    CHECK(piece.size() <= 256 * 1024);  // BodyReader's read size
    received += piece;
    ++pieces;
  }
  CHECK(received == list);
  CHECK(pieces > 1);
  CHECK(client.transport_stats().idle == 1);
  const auto namespaced = resources::pods().in("default");
  run(io, client.get(namespaced, "pod-1"));
  CHECK(server.connections_accepted() == 1);
}

TEST_CASE_FIXTURE(Fixture, "raw: any path with the same headers and errors") {
  script.answers = {{200, R"({"major":"1","minor":"35"})", {}}};
  RestClient client(config());
  RawRequest request;
  request.path = "/version?timeout=32s";
  const auto response = run(io, client.raw(request));
  CHECK(response.status == 200);
  CHECK(json::parse(response.body).at("minor") == "35");
  CHECK(script.requests.at(0).target == "/version?timeout=32s");
}

TEST_CASE("timeouts: RestConfig::timeout bounds a call, and each call may override it") {
  asio::io_context io;
  TestServer server(io, [](ServerSession& session, ServerRequest) -> asio::awaitable<void> {
    co_await session.wait_for_close();  // never answers
  });
  RestConfig config;
  config.host = server.url();
  config.timeout = std::chrono::milliseconds(50);
  RestClient client(config);
  const auto pods = resources::pods().in("default");
  const auto timed_out = [](const std::exception& e) {
    const auto* error = dynamic_cast<const TransportError*>(&e);
    return error != nullptr && error->kind() == TransportErrorKind::kTimeout;
  };
  CHECK(holds(failure(io, client.get(pods, "p")), timed_out));

  config.timeout = std::chrono::hours(1);
  RestClient patient(config);
  GetOptions options;
  options.timeout = std::chrono::milliseconds(50);
  CHECK(holds(failure(io, patient.get(pods, "p", options)), timed_out));
}

TEST_CASE_FIXTURE(Fixture, "observer: the server's warnings are reported") {
  script.answers = {
      {201,
       "{}",
       {{"Warning", R"(299 - "unknown field \"spec.foo\"")"}, {"warning", R"(299 - "second")"}}}};
  auto observer = std::make_shared<CountingObserver>();
  RestClientOptions options;
  options.observer = observer;
  RestClient client(config(), options);
  const auto config_maps = resources::config_maps().in("ns");
  const json::value object = json::parse(R"({"metadata":{"name":"x"},"spec":{"foo":1}})");
  run(io, client.create(config_maps, object));
  CHECK(observer->warnings == std::vector<std::string>{R"(unknown field "spec.foo")", "second"});
}

TEST_CASE("cancellation: a call waiting to retry ends at once when its coroutine is cancelled") {
  asio::io_context io;
  asio::cancellation_signal cancel;
  TestServer server(io, [&](ServerSession& session, ServerRequest) -> asio::awaitable<void> {
    HttpHeaders headers{{"Retry-After", "30"}};
    co_await session.respond(429, "busy", std::move(headers));
  });
  RestConfig config;
  config.host = server.url();
  config.timeout = std::chrono::hours(1);
  RestClient client(config);
  const auto pods = resources::pods().in("default");
  std::exception_ptr error;
  bool finished = false;
  asio::co_spawn(
      io, client.get(pods, "p"),
      asio::bind_cancellation_slot(cancel.slot(), [&](std::exception_ptr e, json::value) {
        error = e;
        finished = true;
      }));
  rg::test::run_until(io, [&] { return server.requests() == 1; });
  // Let the client read the 429 and start its 30 s wait; then cancel it.
  rg::test::run_until(io, [&] { return client.transport_stats().idle == 1; });
  cancel.emit(asio::cancellation_type::terminal);
  rg::test::run_until(io, [&] { return finished; });
  CHECK(holds(error, [](const std::exception& e) {
    const auto* transport = dynamic_cast<const TransportError*>(&e);
    return transport != nullptr && transport->kind() == TransportErrorKind::kCancelled &&
           std::string(e.what()).find("Retry-After") != std::string::npos;
  }));
  CHECK(server.requests() == 1);
}
