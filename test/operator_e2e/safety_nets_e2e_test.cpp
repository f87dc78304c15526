// The operator's safety nets end to end, read from its own /metrics: --sync-period reconciling
// every guarded Deployment again without any event, the handlers' and DeltaFIFOs' backlog
// metrics, and --watch-list with its fallback to paginated LISTs against a kube-sim whose
// WatchList feature gate is off.
#include <doctest/doctest.h>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <future>
#include <map>
#include <sstream>
#include <string>

#include "test/operator_e2e/operator_fixture.hpp"

namespace rg::op::testing {
namespace {

namespace http = boost::beast::http;
using tcp = boost::asio::ip::tcp;

// A loopback port free now (the operator binds it a moment later).
unsigned short free_port() {
  boost::asio::io_context io;
  tcp::acceptor acceptor(io, tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), 0));
  return acceptor.local_endpoint().port();
}

// e2e_options() serving /metrics over plain HTTP on a free loopback port, returned in `port`.
Options with_metrics(Options options, unsigned short& port) {
  port = free_port();
  options.metrics_bind_address = "127.0.0.1:" + std::to_string(port);
  options.metrics_secure = false;  // read over plain HTTP by blocking_get()
  return options;
}

std::string blocking_get(unsigned short port, const std::string& target) {
  boost::asio::io_context io;
  tcp::socket socket(io);
  socket.connect(tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), port));
  http::request<http::empty_body> request{http::verb::get, target, 11};
  request.set(http::field::host, "127.0.0.1");
  http::write(socket, request);
  boost::beast::flat_buffer buffer;
  http::response<http::string_body> response;
  http::read(socket, buffer, response);
  return response.body();
}

// The operator's /metrics page. The operators run on the test thread's io_context, so the GET
// runs on another thread while the fixture drives them.
std::string scrape(OperatorFixture& f, unsigned short port) {
  auto page = std::async(std::launch::async, [port] { return blocking_get(port, "/metrics"); });
  REQUIRE(f.run_until(
      [&] { return page.wait_for(std::chrono::seconds(0)) == std::future_status::ready; }));
  return page.get();
}

// The sum of the samples of `family` whose labels include `labels` (-1 when there is none).
double sample(const std::string& page, const std::string& family,
              const std::map<std::string, std::string>& labels = {}) {
  std::istringstream lines(page);
  double sum = -1;
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with(family + "{") && !line.starts_with(family + " ")) continue;
    bool matches = true;
    for (const auto& [name, value] : labels)
      matches = matches && line.find(name + "=\"" + value + "\"") != std::string::npos;
    if (!matches) continue;
    sum = (sum < 0 ? 0 : sum) + std::stod(line.substr(line.rfind(' ') + 1));
  }
  return sum;
}

double reconciles(OperatorFixture& f, unsigned short port) {
  return sample(scrape(f, port), "replica_guard_reconcile_total");
}

TEST_CASE("--sync-period reconciles every guarded Deployment again without an event") {
  OperatorFixture f;
  unsigned short syncing_port = 0;
  Options syncing = with_metrics(e2e_options(), syncing_port);
  syncing.sync_period = "1s";
  f.start_operator(syncing);
  // The same cluster, events and reconciles, but no resync (and no writes).
  unsigned short plain_port = 0;
  Options plain = with_metrics(e2e_options(), plain_port);
  plain.sync_period = "0";
  plain.dry_run = true;
  f.start_operator(plain);
  const std::vector<std::string> names{"web", "api", "shop"};
  for (const auto& name : names) guard_and_settle(f, name, 2);

  // Whatever events both see, only the syncing operator reconciles every Deployment each second.
  const double syncing_before = reconciles(f, syncing_port);
  const double plain_before = reconciles(f, plain_port);
  // Each scrape runs the operators until it is answered: polling them is what moves time on.
  double extra = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (extra < 3.0 * static_cast<double>(names.size()) &&
         std::chrono::steady_clock::now() < deadline) {
    extra =
        (reconciles(f, syncing_port) - syncing_before) - (reconciles(f, plain_port) - plain_before);
  }
  CHECK_MESSAGE(extra >= 3.0 * static_cast<double>(names.size()),
                "reconciles beyond the events' own: " << extra);

  // The backlog metrics are there for every informer and its handler, idle now.
  const std::string page = scrape(f, syncing_port);
  for (const std::string resource : {"deployments", "pods", "nodes", "leases"}) {
    CAPTURE(resource);
    CHECK(sample(page, "informer_delta_fifo_depth", {{"resource", resource}}) >= 0);
    CHECK(sample(page, "informer_handler_pending_notifications",
                 {{"resource", resource}, {"handler", "replica-guard"}}) >= 0);
    CHECK(sample(page, "informer_handler_notifications_total",
                 {{"resource", resource}, {"handler", "replica-guard"}}) > 0);
    CHECK(sample(page, "informer_handler_failures_total",
                 {{"resource", resource}, {"handler", "replica-guard"}}) == 0);
  }
}

// The requests behind the initial lists, from the reflector metrics: a streaming list is a WATCH
// only; a refused one is a WATCH, then the paginated LIST and the WATCH after it.
TEST_CASE("--watch-list: streaming initial lists where served, paginated LISTs where refused") {
  bool gate = true;
  bool flag = true;
  SUBCASE("served") {}
  SUBCASE("refused: kube-sim's WatchList feature gate is off") { gate = false; }
  SUBCASE("not asked for: --watch-list=false") { flag = false; }
  sim::ServerOptions server;
  server.watch.watch_list = gate;
  OperatorFixture f(3, e2e_cluster_options(), server);
  unsigned short port = 0;
  Options options = with_metrics(e2e_options(), port);
  options.watch_list = flag;
  f.start_operator(options);
  guard_and_settle(f, "web", 6, {{"replica-guard.io/max-surge", "100%"}});

  const std::string page = scrape(f, port);
  const std::map<std::string, std::string> deployments{{"resource", "deployments"}};
  const double lists = sample(page, "reflector_lists_total", deployments);
  const double watches = sample(page, "reflector_watches_total", deployments);
  if (gate && flag) {
    CHECK(lists == 0);
    CHECK(watches >= 1);
  } else {
    CHECK(lists >= 1);
    CHECK(watches >= (flag ? 2 : 1));
  }
  CHECK(sample(page, "reflector_items_total", deployments) >= 1);

  // Either way the operator does its job.
  const auto failed = f.fail_busiest_node("web");
  CHECK(f.run_until([&] { return f.spec_replicas("web") == 6 + failed.pods; }));
}

}  // namespace
}  // namespace rg::op::testing
