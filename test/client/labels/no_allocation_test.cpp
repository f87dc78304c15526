// Pins that matching label and field selectors does not allocate (the informer runs it for every
// object): this test executable counts heap allocations through a replaced operator new.
#include <doctest/doctest.h>

#include <cstdlib>
#include <memory>
#include <new>
#include <string_view>

#include "client/labels/field_selector.hpp"
#include "client/labels/label_selector.hpp"

// AddressSanitizer brings its own operator new; counting is only done in normal builds.
#if !defined(__SANITIZE_ADDRESS__)
#define RG_COUNT_ALLOCATIONS 1
#endif

namespace {
thread_local long allocations = 0;

#ifdef RG_COUNT_ALLOCATIONS
// Out of line, so the compiler does not pair an inlined free() with operator new and warn.
[[gnu::noinline]] void release(void* p) noexcept { std::free(p); }
#endif
}  // namespace

#ifdef RG_COUNT_ALLOCATIONS
void* operator new(std::size_t size) {
  ++allocations;
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return ::operator new(size); }
void operator delete(void* p) noexcept { release(p); }
void operator delete[](void* p) noexcept { release(p); }
void operator delete(void* p, std::size_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t) noexcept { release(p); }
#endif

using namespace rg::client;

TEST_CASE("matching does not allocate") {
#ifndef RG_COUNT_ALLOCATIONS
  MESSAGE("allocation counting is off under AddressSanitizer");
  return;
#endif
  const auto selector = LabelSelector::parse(
      "app=web,tier in (back,front),!canary,env notin (dev),team,replicas>2,"
      "example.com/owner!=nobody");
  const auto fields = FieldSelector::parse("spec.nodeName=n1,status.phase!=Failed");
  const Labels labels{{"app", "web"},     {"tier", "front"}, {"env", "prod"},
                      {"team", "search"}, {"replicas", "3"}, {"example.com/owner", "me"}};
  auto get = [](std::string_view field) -> std::string_view {
    return field == "spec.nodeName" ? "n1" : "Running";
  };

  // The counter does count.
  long start = allocations;
  auto copy = std::make_unique<Labels>(labels);
  CHECK(copy->size() == labels.size());
  CHECK(allocations > start);

  long before = allocations;
  bool all = true;
  for (int i = 0; i < 1000; ++i) all = all && selector.matches(labels) && fields.matches(get);
  long during = allocations - before;
  CHECK(all);
  CHECK(during == 0);
}
