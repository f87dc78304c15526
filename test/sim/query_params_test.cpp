// Query parameters as the API server decodes them (sim/query_params.hpp): the codec's booleans
// (Convert_Slice_string_To_bool), dryRun as a list of "All", orphanDependents; pretty.
#include <doctest/doctest.h>

#include <string>

#include "sim/api_error.hpp"
#include "sim/pretty_print.hpp"
#include "sim/query_params.hpp"
#include "sim/server.hpp"
#include "test/sim/api_paths.hpp"
#include "test/sim/http_client.hpp"

using rg::sim::codec_bool;
using rg::sim::codec_optional_bool;
using rg::sim::HttpRequest;
using rg::sim::test::call;
using rg::sim::test::kConfigMaps;
using rg::sim::test::WatchStream;

namespace {

HttpRequest with_query(std::vector<std::pair<std::string, std::string>> query) {
  HttpRequest request;
  request.method = "GET";
  request.query = std::move(query);
  return request;
}

}  // namespace

TEST_CASE("codec booleans: absent, 0 and false in any case are false, anything else true") {
  CHECK_FALSE(codec_bool(with_query({}), "watch"));
  CHECK_FALSE(codec_optional_bool(with_query({}), "watch").has_value());
  for (std::string no : {"0", "false", "False", "FALSE", "fAlSe"})
    CHECK_MESSAGE(!codec_bool(with_query({{"watch", no}}), "watch"), no);
  for (std::string yes : {"1", "true", "True", "TRUE", "", "yes", "t", "f", "no", "00"})
    CHECK_MESSAGE(codec_bool(with_query({{"watch", yes}}), "watch"), yes);
  // The first value decides, as Convert_Slice_string_To_bool reads (*in)[0].
  CHECK(codec_bool(with_query({{"watch", "true"}, {"watch", "false"}}), "watch"));
  CHECK(codec_optional_bool(with_query({{"force", "false"}}), "force") == false);
}

TEST_CASE("dryRun is a list of All; anything else is 422") {
  CHECK_FALSE(rg::sim::dry_run_param(with_query({}), "CreateOptions"));
  CHECK(rg::sim::dry_run_param(with_query({{"dryRun", "All"}}), "CreateOptions"));
  CHECK(rg::sim::dry_run_param(with_query({{"dryRun", "All"}, {"dryRun", "All"}}), "PatchOptions"));
  for (const auto& query : std::vector<std::vector<std::pair<std::string, std::string>>>{
           {{"dryRun", ""}}, {{"dryRun", "all"}}, {{"dryRun", "All"}, {"dryRun", "x"}}}) {
    try {
      rg::sim::dry_run_param(with_query(query), "UpdateOptions");
      FAIL("accepted dryRun=" << query.back().second);
    } catch (const rg::sim::ApiError& error) {
      CHECK(error.code() == 422);
    }
  }
}

TEST_CASE("watch=True (the Python client's spelling) is a watch, watch=False a list") {
  rg::sim::Server server;
  auto port = server.port();
  REQUIRE(call(port, "POST", kConfigMaps, R"({"metadata":{"name":"a"}})").status == 201);
  for (std::string yes : {"True", "", "yes"}) {
    WatchStream watch(port, kConfigMaps + "?watch=" + yes);
    CHECK(watch.status() == 200);
    auto event = watch.next_event();
    CHECK_MESSAGE(event.at("type") == "ADDED", yes);
    CHECK(event.at("object").at("metadata").at("name") == "a");
  }
  for (std::string no : {"False", "0", "FALSE"}) {
    auto list = call(port, "GET", kConfigMaps + "?watch=" + no);
    CHECK(list.status == 200);
    CHECK_MESSAGE(list.json().at("kind") == "ConfigMapList", no);
  }
  // allowWatchBookmarks and sendInitialEvents decode the same way: this watch-list ends its
  // initial events with the bookmark.
  WatchStream watch_list(port, kConfigMaps +
                                   "?watch=1&sendInitialEvents=True&allowWatchBookmarks=yes"
                                   "&resourceVersionMatch=NotOlderThan");
  CHECK(watch_list.next_event().at("type") == "ADDED");
  auto bookmark = watch_list.next_event();
  CHECK(bookmark.at("type") == "BOOKMARK");
  CHECK(bookmark.at("object").at("metadata").at("annotations").at("k8s.io/initial-events-end") ==
        "true");
}

TEST_CASE("orphanDependents: true orphans, and it cannot be given with propagationPolicy") {
  rg::sim::Server server;
  auto port = server.port();
  const std::string jobs = "/apis/batch/v1/namespaces/default/jobs";
  const std::string leases = "/apis/coordination.k8s.io/v1/namespaces/default/leases";
  auto owner = call(port, "POST", jobs, R"({"metadata":{"name":"j"},"spec":{"template":{
                        "spec":{"containers":[{"name":"c","image":"i"}]}}}})")
                   .json();
  std::string owned = R"({"metadata":{"name":"l","ownerReferences":[{"apiVersion":"batch/v1",
      "kind":"Job","name":"j","uid":")" +
                      std::string(owner.at("metadata").at("uid").as_string()) + R"("}]}})";
  REQUIRE(call(port, "POST", leases, owned).status == 201);

  auto both = call(port, "DELETE", jobs + "/j?orphanDependents=true&propagationPolicy=Orphan");
  CHECK(both.status == 422);
  CHECK(both.json().at("message") ==
        "DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: Invalid value: \"Orphan\": "
        "orphanDependents and deletionPropagation cannot be both set");

  CHECK(call(port, "DELETE", jobs + "/j?orphanDependents=True").status == 200);
  CHECK(call(port, "GET", leases + "/l").status == 200);  // orphaned, not deleted
}

TEST_CASE("pretty: strconv.ParseBool, errors false; indented as json.MarshalIndent") {
  using rg::sim::parse_bool_or_false;
  for (std::string yes : {"1", "t", "T", "TRUE", "true", "True"}) CHECK(parse_bool_or_false(yes));
  for (std::string no : {"0", "f", "False", "yes", "tRuE", "", "2"})
    CHECK(!parse_bool_or_false(no));
  CHECK(rg::sim::indent_json(R"({"a":1,"b":[],"c":{},"d":[1,{"e":"x,:{}[]\"y"}]})") ==
        "{\n  \"a\": 1,\n  \"b\": [],\n  \"c\": {},\n  \"d\": [\n    1,\n    {\n"
        "      \"e\": \"x,:{}[]\\\"y\"\n    }\n  ]\n}");

  rg::sim::Server server;
  auto port = server.port();
  REQUIRE(call(port, "POST", kConfigMaps, R"({"metadata":{"name":"a"},"data":{"k":"v"}})").status ==
          201);
  auto pretty = [&](const std::string& query,
                    const std::vector<std::pair<std::string, std::string>>& headers = {}) {
    auto reply = call(port, "GET", kConfigMaps + "/a" + query, "", headers);
    CHECK(reply.status == 200);
    CHECK(reply.json().at("data").at("k") == "v");  // the same object either way
    return reply.body.starts_with("{\n  \"");
  };
  CHECK(pretty("?pretty=true"));
  CHECK(pretty("?pretty=1"));
  CHECK_FALSE(pretty(""));
  CHECK_FALSE(pretty("?pretty=yes"));  // not a ParseBool value: false
  CHECK_FALSE(pretty("?pretty=false"));
  CHECK(pretty("", {{"User-Agent", "curl/8.5.0"}}));
  CHECK_FALSE(pretty("?pretty=0", {{"User-Agent", "curl/8.5.0"}}));
  CHECK(pretty("?pretty=", {{"User-Agent", "Mozilla/5.0 (X11)"}}));  // empty: the User-Agent rule
  // Lists (streamed) are gathered and indented whole; watches never are.
  auto list = call(port, "GET", kConfigMaps + "?pretty=true");
  CHECK(list.body.starts_with("{\n  \"kind\": \"ConfigMapList\""));
  CHECK(!list.json().at("items").as_array().empty());
  WatchStream watch(port, kConfigMaps + "?watch=1&pretty=true");
  CHECK(watch.next_event().at("type") == "ADDED");
}

TEST_CASE("a DeleteOptions body's dryRun follows the same rule as the query's") {
  rg::sim::Server server;
  auto port = server.port();
  REQUIRE(call(port, "POST", kConfigMaps, R"({"metadata":{"name":"a"}})").status == 201);
  auto refused = call(port, "DELETE", kConfigMaps + "/a", R"({"dryRun":["Some"]})");
  CHECK(refused.status == 422);
  CHECK(refused.body.find(R"(Unsupported value: []string{\"Some\"})") != std::string::npos);
  CHECK(call(port, "DELETE", kConfigMaps + "/a", R"({"dryRun":["All"]})").status == 200);
  CHECK(call(port, "GET", kConfigMaps + "/a").status == 200);  // a dry run deleted nothing
}
