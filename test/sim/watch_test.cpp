// kube-sim watches over HTTP: framing, resourceVersion semantics, 410, bookmarks, watch-list,
// selector transitions, timeouts and dropped watches.
#include <doctest/doctest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>

#include <future>
#include <thread>

#include "sim/server.hpp"
#include "sim/watcher.hpp"
#include "test/sim/api_paths.hpp"
#include "test/sim/http_client.hpp"

namespace json = boost::json;
using rg::sim::test::call;
using rg::sim::test::kConfigMaps;
using rg::sim::test::rv_of;
using rg::sim::test::str;
using rg::sim::test::WatchStream;

namespace {

std::string configmap(const std::string& name, const std::string& labels = "{}") {
  return R"({"metadata":{"name":")" + name + R"(","labels":)" + labels + R"(},"data":{"k":"v"}})";
}

}  // namespace

TEST_CASE("a watch from a resourceVersion streams later changes as chunked JSON lines") {
  rg::sim::Server server;
  auto port = server.port();
  auto first = call(port, "POST", kConfigMaps, configmap("a")).json();
  WatchStream watch(port, kConfigMaps + "?watch=true&resourceVersion=" + rv_of(first));
  CHECK(watch.status() == 200);
  CHECK(watch.chunked());
  CHECK(watch.content_type() == "application/json");

  auto second = call(port, "POST", kConfigMaps, configmap("b")).json();
  auto added = watch.next_event();
  CHECK(added.at("type") == "ADDED");
  CHECK(added.at("object").at("kind") == "ConfigMap");
  CHECK(added.at("object").at("apiVersion") == "v1");
  CHECK(added.at("object") == second);

  auto changed = second;
  changed.at("data").at("k") = "w";
  auto updated = call(port, "PUT", kConfigMaps + "/b", json::serialize(changed)).json();
  auto modified = watch.next_event();
  CHECK(modified.at("type") == "MODIFIED");
  CHECK(modified.at("object") == updated);

  REQUIRE(call(port, "DELETE", kConfigMaps + "/b").status == 200);
  auto deleted = watch.next_event();
  CHECK(deleted.at("type") == "DELETED");
  CHECK(std::stoull(rv_of(deleted.at("object"))) > std::stoull(rv_of(updated)));
  CHECK(deleted.at("object").at("data").at("k") == "w");
}

TEST_CASE("a watch from a compacted resourceVersion gets 200 and one ERROR event with 410") {
  rg::sim::Server server;
  auto port = server.port();
  auto first = call(port, "POST", kConfigMaps, configmap("a")).json();
  REQUIRE(call(port, "POST", kConfigMaps, configmap("b")).status == 201);
  server.faults().compact();
  WatchStream watch(port, kConfigMaps + "?watch=true&resourceVersion=" + rv_of(first));
  CHECK(watch.status() == 200);
  auto error = watch.next_event();
  CHECK(error.at("type") == "ERROR");
  const auto& status = error.at("object");
  CHECK(status.at("kind") == "Status");
  CHECK(status.at("code") == 410);
  CHECK(status.at("reason") == "Expired");
  auto expected = "too old resource version: " + rv_of(first) + " (" +
                  std::to_string(server.store().resource_version()) + ")";
  CHECK(str(status.at("message")) == expected);
  CHECK(watch.next_event().is_null());  // the stream ends
}

TEST_CASE("watch-list sends the state, then the initial-events-end bookmark, then changes") {
  rg::sim::Server server;
  auto port = server.port();
  REQUIRE(call(port, "POST", kConfigMaps, configmap("a")).status == 201);
  REQUIRE(call(port, "POST", kConfigMaps, configmap("b")).status == 201);
  const auto state_rv = server.store().resource_version();
  WatchStream watch(port, kConfigMaps +
                              "?watch=true&sendInitialEvents=true&allowWatchBookmarks=true"
                              "&resourceVersionMatch=NotOlderThan");
  CHECK(watch.next_event().at("object").at("metadata").at("name") == "a");
  CHECK(watch.next_event().at("object").at("metadata").at("name") == "b");
  auto bookmark = watch.next_event();
  CHECK(
      bookmark ==
      json::parse(
          R"({"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":")" +
          std::to_string(state_rv) + R"(","annotations":{"k8s.io/initial-events-end":"true"}}}})"));
  REQUIRE(call(port, "POST", kConfigMaps, configmap("c")).status == 201);
  auto added = watch.next_event();
  CHECK(added.at("type") == "ADDED");
  CHECK(added.at("object").at("metadata").at("name") == "c");
}

TEST_CASE("a legacy watch without resourceVersion starts with the current state") {
  rg::sim::Server server;
  auto port = server.port();
  REQUIRE(call(port, "POST", kConfigMaps, configmap("a")).status == 201);
  WatchStream watch(port, kConfigMaps + "?watch=true");
  auto added = watch.next_event();
  CHECK(added.at("type") == "ADDED");
  CHECK(added.at("object").at("metadata").at("name") == "a");
}

TEST_CASE("objects entering and leaving a label selector are seen as ADDED and DELETED") {
  rg::sim::Server server;
  auto port = server.port();
  auto object = call(port, "POST", kConfigMaps, configmap("a", R"({"app":"db"})")).json();
  WatchStream watch(
      port, kConfigMaps + "?watch=true&labelSelector=app%3Dweb&resourceVersion=" + rv_of(object));
  auto patch = [&](const std::string& app) {
    return call(port, "PATCH", kConfigMaps + "/a",
                R"({"metadata":{"labels":{"app":")" + app + R"("}}})",
                {{"Content-Type", "application/merge-patch+json"}})
        .json();
  };
  auto entered = patch("web");
  auto added = watch.next_event();
  CHECK(added.at("type") == "ADDED");
  CHECK(added.at("object") == entered);
  auto left = patch("db");
  auto deleted = watch.next_event();
  CHECK(deleted.at("type") == "DELETED");
  CHECK(rv_of(deleted.at("object")) == rv_of(left));
  CHECK(deleted.at("object").at("metadata").at("labels").at("app") ==
        "web");  // the last state seen
}

TEST_CASE("bookmarks arrive periodically when allowed") {
  rg::sim::ServerOptions options;
  options.watch.bookmark_interval = std::chrono::milliseconds(20);
  rg::sim::Server server(options);
  auto port = server.port();
  auto object = call(port, "POST", kConfigMaps, configmap("a")).json();
  WatchStream watch(
      port, kConfigMaps + "?watch=true&allowWatchBookmarks=true&resourceVersion=" + rv_of(object));
  auto bookmark = watch.next_event();
  CHECK(bookmark.at("type") == "BOOKMARK");
  CHECK(rv_of(bookmark.at("object")) == rv_of(object));
  CHECK(!bookmark.at("object").at("metadata").as_object().contains("annotations"));

  // Changes still stream between bookmarks, and bookmarks keep coming after them.
  auto added = call(port, "POST", kConfigMaps, configmap("b")).json();
  auto event = watch.next_event();
  while (event.at("type") == "BOOKMARK") event = watch.next_event();
  CHECK(event.at("type") == "ADDED");
  CHECK(rv_of(event.at("object")) == rv_of(added));
  auto later = watch.next_event();
  CHECK(later.at("type") == "BOOKMARK");
  CHECK(rv_of(later.at("object")) == rv_of(added));
}

TEST_CASE("timeoutSeconds ends the stream with the terminating chunk") {
  rg::sim::Server server;
  auto port = server.port();
  WatchStream watch(port, kConfigMaps + "?watch=true&timeoutSeconds=1&resourceVersion=" +
                              std::to_string(server.store().resource_version()));
  CHECK(watch.status() == 200);
  CHECK(watch.next_line().empty());
}

TEST_CASE("dropping watches ends every open stream") {
  rg::sim::Server server;
  auto port = server.port();
  WatchStream watch(port, kConfigMaps + "?watch=true&resourceVersion=" +
                              std::to_string(server.store().resource_version()));
  CHECK(watch.status() == 200);
  CHECK(call(port, "POST", "/sim/faults/drop-watches").status == 200);
  CHECK(watch.next_line().empty());
}

TEST_CASE("a dropped watch sends no bookmark past the changes it will not deliver") {
  // A bookmark on every wake-up, so the stream's next wake-up after the drop would carry one.
  rg::sim::ServerOptions options;
  options.watch.bookmark_interval = std::chrono::milliseconds(0);
  rg::sim::Server server(options);
  auto port = server.port();
  auto object = call(port, "POST", kConfigMaps, configmap("a")).json();
  WatchStream watch(
      port, kConfigMaps + "?watch=true&allowWatchBookmarks=true&resourceVersion=" + rv_of(object));
  REQUIRE(watch.next_event().at("type") == "BOOKMARK");  // its session runs

  // Holds kube-sim's one io thread in an admin request, so the watch's session runs only once
  // the drop and the changes after it are done: they all happen between two of its wake-ups.
  std::promise<void> entered, release;
  auto released = release.get_future().share();
  server.route_admin("/sim/test/hold", [&](const rg::sim::HttpRequest&) {
    entered.set_value();
    released.wait();
    return rg::sim::HttpResponse{};
  });
  std::thread holder([&] { call(port, "POST", "/sim/test/hold"); });
  entered.get_future().wait();
  const auto dropped_at = server.store().resource_version();
  server.faults().drop_watches();
  const auto& type = *server.resources().find("", "v1", "configmaps");
  for (const char* name : {"b", "c"}) {
    server.store().create(type, json::parse(configmap(name)).as_object());
  }
  REQUIRE(server.store().resource_version() > dropped_at);
  release.set_value();
  holder.join();

  // Until the stream ends, no bookmark claims the changes after the drop: a client resuming from
  // one would never see them.
  for (auto line = watch.next_line(); !line.empty(); line = watch.next_line()) {
    const auto event = json::parse(line);
    CHECK(event.at("type") == "BOOKMARK");
    CHECK(std::stoull(rv_of(event.at("object"))) <= dropped_at);
  }
}

TEST_CASE("the store's watch serves in-process subscribers the same events") {
  rg::sim::Server server;
  const auto& type = *server.resources().find("", "v1", "configmaps");
  auto start = server.store().watch(type, "default", server.store().resource_version());
  REQUIRE(call(server.port(), "POST", kConfigMaps, configmap("a")).status == 201);
  auto events = start.watcher->take();
  REQUIRE(events.size() == 1);
  CHECK(events[0].type == rg::sim::EventType::kAdded);
  CHECK(events[0].object->name == "a");
  server.store().unwatch(type, start.watcher);
}

TEST_CASE("wake() ends a watcher's wait without events, once per call") {
  boost::asio::io_context io;
  rg::sim::Watcher watcher("", 10);
  int waits = 0;
  watcher.wake();  // before the wait: the wait returns at once
  auto waiter = [&]() -> boost::asio::awaitable<void> {
    for (;;) {
      co_await watcher.wait();
      ++waits;
      if (watcher.closed()) co_return;
      CHECK(watcher.take().empty());
    }
  };
  boost::asio::co_spawn(io, waiter(), boost::asio::detached);
  io.poll();
  CHECK(waits == 1);  // and the next wait blocks: the wake was used up
  watcher.wake();
  io.poll();
  CHECK(waits == 2);
  io.poll();
  CHECK(waits == 2);
  watcher.close();
  io.poll();
  CHECK(waits == 3);
  CHECK(io.stopped());
}
