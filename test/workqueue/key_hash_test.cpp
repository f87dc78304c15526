// Tests of workqueue/detail/key_hash.hpp: the string hash reads every byte of keys of every length
// (its loads overlap at the edges), and spreads similar keys over a table's buckets.
#include "workqueue/detail/key_hash.hpp"

#include <doctest/doctest.h>

#include <set>
#include <string>

using rg::workqueue::detail::KeyHash;

TEST_CASE("every byte of a string key of any length changes its hash") {
  const KeyHash<std::string> hash;
  for (std::size_t length = 1; length <= 70; ++length) {
    const std::string base(length, 'a');
    const std::size_t h = hash(base);
    for (std::size_t at = 0; at < length; ++at) {
      std::string changed = base;
      changed[at] = 'b';
      INFO("length " << length << ", byte " << at);
      CHECK(hash(changed) != h);
    }
  }
}

TEST_CASE("string keys that differ only in length hash apart") {
  const KeyHash<std::string> hash;
  std::set<std::size_t> seen;
  for (std::size_t length = 0; length <= 70; ++length) {
    seen.insert(hash(std::string(length, '\0')));
  }
  CHECK(seen.size() == 71);
}

TEST_CASE("numbered keys spread over the low and high bits alike") {
  // The bench's keys ("default/web-NNNNNN"): 4096 of them over 64 buckets taken from the lowest
  // bits and from the highest, as hash tables do; each bucket should get near 64.
  const KeyHash<std::string> hash;
  int low[64] = {};
  int high[64] = {};
  for (int i = 0; i < 4096; ++i) {
    const std::size_t h = hash("default/web-" + std::to_string(100000 + i));
    ++low[h & 63];
    ++high[h >> 58];
  }
  for (int b = 0; b < 64; ++b) {
    INFO("bucket " << b);
    CHECK(low[b] > 24);
    CHECK(low[b] < 112);
    CHECK(high[b] > 24);
    CHECK(high[b] < 112);
  }
}

TEST_CASE("other key types keep std::hash") { CHECK(KeyHash<int>{}(42) == std::hash<int>{}(42)); }
