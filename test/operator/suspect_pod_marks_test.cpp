// The not-ready marking policy rule by rule (plan_not_ready_marks, MarkedPods) and its JSON patch
// (not_ready_patch): which pods on a suspect node get Ready=False, once per suspect episode.
#include <doctest/doctest.h>

#include <boost/json.hpp>

#include "operator/suspect_pod_marks.hpp"

namespace rg::op {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

const auto kMarksT0 = std::chrono::steady_clock::time_point(1000s);
const std::vector<SuspectEpisode> kSuspects = {{"dead", kMarksT0}};

PodReadiness pod(std::string name, std::string node, bool ready = true, bool guarded = true) {
  return {.namespace_ = "shop",
          .name = name,
          .uid = "uid-" + name,
          .node = std::move(node),
          .ready = ready,
          .ready_condition = 2,
          .guarded = guarded};
}

std::vector<std::string> names(const std::vector<PodMark>& marks) {
  std::vector<std::string> out;
  for (const auto& m : marks) out.push_back(m.name);
  return out;
}

TEST_CASE("flag on: the guarded, Ready pods of suspect nodes, and no others") {
  const std::vector<PodReadiness> pods = {
      pod("a", "dead"),
      pod("not-ready", "dead", false),
      pod("unguarded", "dead", true, false),
      pod("elsewhere", "alive"),
      pod("b", "dead"),
  };
  const auto marks = plan_not_ready_marks(kSuspects, pods, {.enabled = true}, MarkedPods{});
  CHECK(names(marks) == std::vector<std::string>{"a", "b"});
  CHECK(marks.front() == PodMark{"shop", "a", "uid-a", "dead", 2});
}

TEST_CASE("flag off, or surges suppressed (likely a partition): nothing") {
  const std::vector<PodReadiness> pods = {pod("a", "dead")};
  CHECK(plan_not_ready_marks(kSuspects, pods, {.enabled = false}, MarkedPods{}).empty());
  CHECK(plan_not_ready_marks(kSuspects, pods, {.enabled = true, .surges_suppressed = true},
                             MarkedPods{})
            .empty());
}

TEST_CASE("warm-up (no suspect yet after start or leadership): nothing") {
  CHECK(plan_not_ready_marks({}, {pod("a", "dead")}, {.enabled = true}, MarkedPods{}).empty());
}

TEST_CASE("once per episode: a pod Ready again in the same episode is left; a new one marks") {
  MarkedPods marked;
  marked.add(kSuspects.front(), "uid-a");
  const std::vector<PodReadiness> pods = {pod("a", "dead"), pod("b", "dead")};
  CHECK(names(plan_not_ready_marks(kSuspects, pods, {.enabled = true}, marked)) ==
        std::vector<std::string>{"b"});
  // The node showed life, and later turned suspect again: a new episode.
  const std::vector<SuspectEpisode> later = {{"dead", kMarksT0 + 30s}};
  marked.keep_only(later);
  CHECK_FALSE(marked.contains(kSuspects.front(), "uid-a"));
  CHECK(names(plan_not_ready_marks(later, pods, {.enabled = true}, marked)) ==
        std::vector<std::string>{"a", "b"});
  // An episode that is still current is remembered.
  marked.add(later.front(), "uid-a");
  marked.keep_only(later);
  CHECK(marked.contains(later.front(), "uid-a"));
  // A new episode of the same node replaces the old one's record.
  marked.add({"dead", kMarksT0 + 60s}, "uid-b");
  CHECK_FALSE(marked.contains(later.front(), "uid-a"));
}

TEST_CASE("the patch: Ready False with a new transition time, guarded by uid and status") {
  const json::array patch = not_ready_patch("uid-a", 3, "2026-12-01T18:00:00Z");
  const json::value expected = json::parse(R"([
    {"op": "test", "path": "/metadata/uid", "value": "uid-a"},
    {"op": "test", "path": "/status/conditions/3/type", "value": "Ready"},
    {"op": "test", "path": "/status/conditions/3/status", "value": "True"},
    {"op": "replace", "path": "/status/conditions/3/status", "value": "False"},
    {"op": "add", "path": "/status/conditions/3/lastTransitionTime",
     "value": "2026-12-01T18:00:00Z"}
  ])");
  CHECK(json::value(patch) == expected);
  // Reason and message are not touched.
  for (const auto& op : patch) {
    const auto path = op.at("path").as_string();
    CHECK(path.find("reason") == json::string::npos);
    CHECK(path.find("message") == json::string::npos);
  }
}

}  // namespace
}  // namespace rg::op
