// Tests of workqueue/detail/item_table.hpp: lookups, dropping state, and recycled Items that must
// never answer for the key they held before.
#include "workqueue/detail/item_table.hpp"

#include <doctest/doctest.h>

#include <functional>
#include <set>
#include <string>
#include <vector>

using rg::workqueue::detail::ItemTable;

namespace {

using StringTable = ItemTable<std::string, std::hash<std::string>, std::equal_to<>>;

// Every key hashes alike, so only the key comparison tells them apart.
struct CollidingHash {
  std::size_t operator()(const std::string&) const { return 42; }
};

std::string long_key(int i) { return "default/deployment-" + std::to_string(i); }

std::set<std::string> keys(const StringTable& table) {
  std::set<std::string> out;
  table.for_each([&](const StringTable::Item& item) { CHECK(out.insert(item.key).second); });
  return out;
}

}  // namespace

TEST_CASE("an item is made once per key, clean, and found again") {
  StringTable table;
  auto* a = table.find_or_insert(std::string("a"));
  CHECK(a->key == "a");
  CHECK_FALSE(a->dirty);
  CHECK_FALSE(a->processing);
  a->dirty = true;
  CHECK(table.find_or_insert(std::string("a")) == a);
  CHECK(a->dirty);  // found, not remade
  auto* b = table.find_or_insert(std::string("b"));
  CHECK(b != a);
  CHECK(keys(table) == std::set<std::string>{"a", "b"});
}

TEST_CASE("a recycled item holds its new key, clean, and the old key is gone") {
  StringTable table;
  auto* old_item = table.find_or_insert(long_key(1));
  old_item->dirty = true;
  old_item->processing = true;
  table.erase(old_item);
  CHECK(keys(table).empty());

  const std::string next = long_key(2);
  auto* fresh = table.find_or_insert(next);  // the const& overload copies into the old storage
  CHECK(fresh == old_item);                  // recycled
  CHECK(fresh->key == next);
  CHECK_FALSE(fresh->dirty);
  CHECK_FALSE(fresh->processing);
  CHECK(table.find_or_insert(next) == fresh);
  auto* again = table.find_or_insert(long_key(1));  // the old key has no state: made anew
  CHECK(again != fresh);
  CHECK(again->key == long_key(1));
  CHECK_FALSE(again->dirty);
  CHECK(keys(table) == std::set<std::string>{long_key(1), long_key(2)});
}

TEST_CASE("keys with equal hashes are told apart") {
  ItemTable<std::string, CollidingHash, std::equal_to<>> table;
  std::vector<decltype(table)::Item*> items;
  items.reserve(20);
  for (int i = 0; i < 20; ++i) items.push_back(table.find_or_insert(long_key(i)));
  for (int i = 0; i < 20; ++i) {
    INFO("key " << i);
    CHECK(items[i]->key == long_key(i));
    CHECK(table.find_or_insert(long_key(i)) == items[i]);
  }
  items[7]->dirty = true;
  table.erase(items[7]);  // by its address: the other colliding keys stay
  CHECK(table.find_or_insert(long_key(8)) == items[8]);
  auto* seven = table.find_or_insert(long_key(7));
  CHECK_FALSE(seven->dirty);  // fresh state
  CHECK(table.find_or_insert(long_key(7)) == seven);
}

TEST_CASE("for_each visits exactly the keys with state, across growth and recycling") {
  StringTable table;
  std::vector<StringTable::Item*> items;
  items.reserve(1000);
  for (int i = 0; i < 1000; ++i) items.push_back(table.find_or_insert(long_key(i)));
  for (int i = 0; i < 1000; i += 2) table.erase(items[i]);
  for (int i = 1000; i < 1300; ++i) table.find_or_insert(long_key(i));
  const std::set<std::string> seen = keys(table);
  CHECK(seen.size() == 500 + 300);
  for (int i = 1; i < 1000; i += 2) CHECK(seen.count(long_key(i)) == 1);
  for (int i = 1000; i < 1300; ++i) CHECK(seen.count(long_key(i)) == 1);
  CHECK(seen.count(long_key(0)) == 0);
}
