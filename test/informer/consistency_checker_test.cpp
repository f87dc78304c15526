// The pure half of the cache consistency checker: comparing a cache with a LIST, and keeping
// only the differences a second look confirms.
#include <doctest/doctest.h>

#include "informer/consistency_checker.hpp"

namespace rg::informer {
namespace {

using Kind = CacheDifference::Kind;

TEST_CASE("compare_cache: missing, stale and extra objects; a newer cache is no difference") {
  const CacheState cache{{"a/same", "5"}, {"a/stale", "3"}, {"a/newer", "9"}, {"a/extra", "4"}};
  const CacheState server{{"a/same", "5"}, {"a/stale", "6"}, {"a/newer", "7"}, {"a/missing", "8"}};
  const auto differences = compare_cache(cache, server);
  REQUIRE(differences.size() == 3);
  CHECK(differences[0] == CacheDifference{Kind::kMissing, "a/missing", "", "8"});
  CHECK(differences[1] == CacheDifference{Kind::kStale, "a/stale", "3", "6"});
  CHECK(differences[2] == CacheDifference{Kind::kExtra, "a/extra", "4", ""});
  CHECK(compare_cache(server, server).empty());
}

TEST_CASE("compare_cache: resourceVersions that are not numbers differ when unequal") {
  const auto differences = compare_cache({{"n", "b"}}, {{"n", "a"}});
  REQUIRE(differences.size() == 1);
  CHECK(differences[0].kind == Kind::kStale);
}

TEST_CASE("confirmed: only differences seen twice, unchanged on both sides") {
  const std::vector<CacheDifference> first{{Kind::kMissing, "a/x", "", "8"},
                                           {Kind::kStale, "a/y", "3", "6"},
                                           {Kind::kExtra, "a/z", "4", ""}};
  const std::vector<CacheDifference> second{{Kind::kMissing, "a/x", "", "8"},    // persists
                                            {Kind::kStale, "a/y", "3", "10"},    // server moved on
                                            {Kind::kMissing, "a/w", "", "11"}};  // new
  const auto out = confirmed(first, second);
  REQUIRE(out.size() == 1);
  CHECK(out[0].key == "a/x");
}

TEST_CASE("to_string of the difference kinds") {
  CHECK(to_string(Kind::kMissing) == "missing");
  CHECK(to_string(Kind::kStale) == "stale");
  CHECK(to_string(Kind::kExtra) == "extra");
}

}  // namespace
}  // namespace rg::informer
