// Tests of workqueue/item_table.hpp: lookups, dropping state, and recycled Items that must
// never answer for the key they held before.
#include "workqueue/item_table.hpp"

#include <doctest/doctest.h>

#include <functional>
#include <set>
#include <string>
#include <vector>

using rg::workqueue::detail::ItemTable;

namespace {

using StringTable = ItemTable<std::string, std::hash<std::string>, std::equal_to<std::string>>;

// Every key hashes alike, so only the key comparison tells them apart.
struct CollidingHash {
  std::size_t operator()(const std::string&) const { return 42; }
};

std::string long_key(int i) { return "default/deployment-" + std::to_string(i); }

}  // namespace

TEST_CASE("an item is made once per key, clean, and found again") {
  StringTable table;
  CHECK(table.find("a").item == nullptr);
  auto* a = table.find_or_insert(std::string("a"));
  CHECK(a->key == "a");
  CHECK_FALSE(a->dirty);
  CHECK_FALSE(a->processing);
  a->dirty = true;
  CHECK(table.find_or_insert(std::string("a")) == a);
  CHECK(table.find("a").item == a);
  CHECK(table.find("b").item == nullptr);
}

TEST_CASE("a recycled item holds its new key, clean, and the old key is gone") {
  StringTable table;
  auto* old_item = table.find_or_insert(long_key(1));
  old_item->dirty = true;
  old_item->processing = true;
  table.erase(table.find(long_key(1)));
  CHECK(table.find(long_key(1)).item == nullptr);

  const std::string next = long_key(2);
  auto* fresh = table.find_or_insert(next);  // the const& overload copies into the old storage
  CHECK(fresh == old_item);                  // recycled
  CHECK(fresh->key == next);
  CHECK_FALSE(fresh->dirty);
  CHECK_FALSE(fresh->processing);
  CHECK(table.find(next).item == fresh);
  CHECK(table.find(long_key(1)).item == nullptr);
}

TEST_CASE("keys with equal hashes are told apart") {
  ItemTable<std::string, CollidingHash, std::equal_to<std::string>> table;
  std::vector<const void*> items;
  for (int i = 0; i < 20; ++i) items.push_back(table.find_or_insert(long_key(i)));
  for (int i = 0; i < 20; ++i) {
    INFO("key " << i);
    CHECK(table.find(long_key(i)).item == items[i]);
  }
  table.erase(table.find(long_key(7)));
  CHECK(table.find(long_key(7)).item == nullptr);
  CHECK(table.find(long_key(8)).item == items[8]);
}

TEST_CASE("for_each visits exactly the keys with state, across growth and recycling") {
  StringTable table;
  for (int i = 0; i < 1000; ++i) table.find_or_insert(long_key(i));
  for (int i = 0; i < 1000; i += 2) table.erase(table.find(long_key(i)));
  for (int i = 1000; i < 1300; ++i) table.find_or_insert(long_key(i));
  std::set<std::string> seen;
  table.for_each([&](const StringTable::Item& item) { CHECK(seen.insert(item.key).second); });
  CHECK(seen.size() == 500 + 300);
  for (int i = 1; i < 1000; i += 2) CHECK(seen.count(long_key(i)) == 1);
  for (int i = 1000; i < 1300; ++i) CHECK(table.find(long_key(i)).item != nullptr);
  CHECK(table.find(long_key(0)).item == nullptr);
}
