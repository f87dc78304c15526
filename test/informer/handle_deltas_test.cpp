// HandleDeltas (process_deltas): the cache is updated first, then the handler is told; Sync and
// Replaced become updates when cached and adds when not; deletes may carry tombstones.
// Driven with hand-made delta lists, as a fake DeltaFIFO would pop them.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "informer/detail/handle_deltas.hpp"
#include "informer/indexer.hpp"
#include "test/informer/test_objects.hpp"

using namespace rg::informer;
using namespace rg::informer::test;
using rg::informer::detail::process_deltas;

namespace {

/// Records each callback together with what the cache held for the key at that moment.
struct Recorder {
  const Indexer<TestPod>* cache;
  std::vector<std::string> log;

  std::string cached(const std::string& key) const {
    auto pod = cache->get_by_key(key);
    return pod ? pod->metadata.resource_version : "-";
  }
  void on_add(const PodPtr& pod, bool initial) {
    const std::string key = meta_namespace_key(*pod);
    log.push_back("add " + key + "@" + pod->metadata.resource_version +
                  (initial ? " initial" : "") + " cache=" + cached(key));
  }
  void on_update(const PodPtr& old_pod, const PodPtr& new_pod) {
    const std::string key = meta_namespace_key(*new_pod);
    log.push_back("update " + key + "@" + old_pod->metadata.resource_version + "->" +
                  new_pod->metadata.resource_version + " cache=" + cached(key));
  }
  void on_delete(const ObjectOrTombstone<TestPod>& object) {
    const std::string key = key_of<TestPod>(object);
    log.push_back(std::string(is_tombstone<TestPod>(object) ? "tombstone " : "delete ") + key +
                  " cache=" + cached(key));
  }
};

Deltas<TestPod> deltas(std::initializer_list<Delta<TestPod>> list) { return list; }

}  // namespace

TEST_CASE("each delta updates the cache before the handler hears of it") {
  Indexer<TestPod> cache;
  Recorder recorder{&cache, {}};
  process_deltas(recorder, cache,
                 deltas({{DeltaType::kAdded, make_pod("ns", "a", "1")},
                         {DeltaType::kUpdated, make_pod("ns", "a", "2")},
                         {DeltaType::kDeleted, make_pod("ns", "a", "3")}}),
                 false);
  CHECK(recorder.log == std::vector<std::string>{"add ns/a@1 cache=1", "update ns/a@1->2 cache=2",
                                                 "delete ns/a cache=-"});
  CHECK(cache.size() == 0);
}

TEST_CASE("Replaced and Sync are adds when not cached and updates when cached") {
  Indexer<TestPod> cache;
  cache.add(make_pod("ns", "cached", "1"));
  Recorder recorder{&cache, {}};
  process_deltas(recorder, cache, deltas({{DeltaType::kReplaced, make_pod("ns", "fresh", "5")}}),
                 true);
  process_deltas(recorder, cache, deltas({{DeltaType::kReplaced, make_pod("ns", "cached", "5")}}),
                 true);
  process_deltas(recorder, cache, deltas({{DeltaType::kSync, make_pod("ns", "cached", "5")}}),
                 false);
  process_deltas(recorder, cache, deltas({{DeltaType::kUpdated, make_pod("ns", "new", "6")}}),
                 false);
  CHECK(recorder.log ==
        std::vector<std::string>{"add ns/fresh@5 initial cache=5", "update ns/cached@1->5 cache=5",
                                 "update ns/cached@5->5 cache=5", "add ns/new@6 cache=6"});
}

TEST_CASE("a tombstone removes the key and reaches the handler as a tombstone") {
  Indexer<TestPod> cache;
  cache.add(make_pod("ns", "gone", "1"));
  Recorder recorder{&cache, {}};
  process_deltas(
      recorder, cache,
      deltas({{DeltaType::kDeleted,
               DeletedFinalStateUnknown<TestPod>{"ns/gone", cache.get_by_key("ns/gone")}}}),
      false);
  CHECK(recorder.log == std::vector<std::string>{"tombstone ns/gone cache=-"});
}

TEST_CASE("a non-delete delta without an object is refused") {
  Indexer<TestPod> cache;
  Recorder recorder{&cache, {}};
  CHECK_THROWS_WITH_AS(
      process_deltas(recorder, cache,
                     deltas({{DeltaType::kUpdated, DeletedFinalStateUnknown<TestPod>{"ns/x", {}}}}),
                     false),
      doctest::Contains("must carry an object"), std::invalid_argument);
}
