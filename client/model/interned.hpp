// Interned<T>: an immutable value held once for every object that holds an equal one. A Pod's
// labels and ownerReferences are the same for every pod of a ReplicaSet, so an informer caching
// 100k pods keeps one copy per ReplicaSet and 16 bytes per pod, instead of a map or a list (and
// their strings) per pod. An empty value takes no storage at all.
//
// Read it as the T it holds: `pod.metadata.labels.at("app")`, `for (auto& [k, v] : labels)`,
// `owners.size()`, `owners[0]`, and wherever a `const T&` is expected (a selector's
// `matches(const Labels&)`); an interned string (a pod's generateName, the same for every pod of
// a ReplicaSet) reads as a std::string_view. It is immutable: assign a whole new T to change it.
//
// The pool is one per value type for the whole process, behind a mutex, so informers decoding on
// different threads share values; it holds weak references, and a value leaves the pool when the
// last object holding it goes (its deleter erases it under the same mutex).
#pragma once

#include <cstddef>
#include <functional>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <ranges>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>

namespace rg::client {

namespace detail {

inline std::size_t combine_hash(std::size_t seed, std::size_t value) noexcept {
  return seed ^ (value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
}

/// A hash of a value's contents: strings, pairs and ranges of them, and types with a
/// `hash_value(const T&)` found by argument-dependent lookup.
template <class T>
std::size_t content_hash(const T& value) {
  if constexpr (std::is_convertible_v<const T&, std::string_view>) {
    return std::hash<std::string_view>{}(std::string_view(value));
  } else if constexpr (requires { value.first, value.second; }) {
    return combine_hash(content_hash(value.first), content_hash(value.second));
  } else if constexpr (std::ranges::range<T>) {
    std::size_t seed = 0;
    for (const auto& element : value) seed = combine_hash(seed, content_hash(element));
    return seed;
  } else {
    return hash_value(value);
  }
}

/// The process-wide pool of one value type.
template <class T>
class InternPool {
 public:
  static InternPool& instance() {
    // Never destroyed: objects holding values may outlive static destruction.
    static InternPool* const pool = new InternPool;
    return *pool;
  }

  /// The pooled value equal to `value`, added (as a copy) if there is none.
  std::shared_ptr<const T> intern(const T& value) {
    std::lock_guard lock(mutex_);
    if (auto it = entries_.find(&value); it != entries_.end()) {
      if (auto held = it->second.lock()) return held;
      // Its last holder is going and its deleter is waiting for the lock: that deleter will find
      // this key taken by the value added below, and leave it.
      entries_.erase(it);
    }
    std::shared_ptr<const T> held(new T(value), Release{this});
    entries_.emplace(held.get(), held);
    return held;
  }

  /// Values in the pool (some may be on their way out).
  std::size_t size() const {
    std::lock_guard lock(mutex_);
    return entries_.size();
  }

 private:
  InternPool() = default;

  struct Release {
    InternPool* pool;
    void operator()(const T* value) const { pool->release(value); }
  };
  struct Hash {
    std::size_t operator()(const T* value) const { return content_hash(*value); }
  };
  struct Equal {
    bool operator()(const T* a, const T* b) const { return a == b || *a == *b; }
  };

  void release(const T* value) {
    {
      std::lock_guard lock(mutex_);
      auto it = entries_.find(value);
      if (it != entries_.end() && it->first == value) entries_.erase(it);
    }
    delete value;
  }

  mutable std::mutex mutex_;
  std::unordered_map<const T*, std::weak_ptr<const T>, Hash, Equal> entries_;
};

}  // namespace detail

template <class T>
class Interned {
 public:
  using value_type = T;

  Interned() noexcept = default;
  Interned(const T& value)  // NOLINT(google-explicit-constructor): assigned like the T it holds
      : held_(value.empty() ? nullptr : detail::InternPool<T>::instance().intern(value)) {}
  template <class V = T>
  Interned(std::initializer_list<typename V::value_type> values) : Interned(T(values)) {}
  /// An interned string is built from any string (`meta.generate_name = "web-"`).
  template <class S>
  Interned(const S& text) requires(std::is_convertible_v<const S&, std::string_view> &&
                                   !std::is_same_v<S, T> &&
                                   std::is_constructible_v<T, std::string_view>)
      : Interned(T(std::string_view(text))) {}

  const T& get() const noexcept { return held_ ? *held_ : empty_value(); }
  operator const T&() const noexcept { return get(); }  // NOLINT: reads as the T it holds
  const T& operator*() const noexcept { return get(); }
  const T* operator->() const noexcept { return &get(); }
  /// An interned string reads as a std::string_view.
  operator std::string_view() const noexcept  // NOLINT(google-explicit-constructor): same
      requires std::is_convertible_v<const T&, std::string_view> {
    return get();
  }

  /// True when both hold the same pooled value (or are both empty).
  bool shares(const Interned& other) const noexcept { return held_ == other.held_; }

  // The read API of maps and lists, as the T has it.
  auto begin() const noexcept { return get().begin(); }
  auto end() const noexcept { return get().end(); }
  std::size_t size() const noexcept { return get().size(); }
  bool empty() const noexcept { return get().empty(); }
  template <class K>
  decltype(auto) find(const K& key) const requires requires(const T& value) {
    value.find(key);
  }
  { return get().find(key); }
  template <class K>
  decltype(auto) at(const K& key) const requires requires(const T& value) {
    value.at(key);
  }
  { return get().at(key); }
  template <class K>
  decltype(auto) contains(const K& key) const requires requires(const T& value) {
    value.contains(key);
  }
  { return get().contains(key); }
  template <class K>
  decltype(auto) count(const K& key) const requires requires(const T& value) {
    value.count(key);
  }
  { return get().count(key); }
  decltype(auto) operator[](std::size_t i) const requires requires(const T& value) { value[i]; }
  { return get()[i]; }

  friend bool operator==(const Interned& a, const Interned& b) {
    return a.held_ == b.held_ || a.get() == b.get();
  }
  friend bool operator==(const Interned& a, const T& b) { return a.get() == b; }
  template <class S>
  friend bool operator==(const Interned& a,
                         const S& b) requires(std::is_convertible_v<const S&, std::string_view> &&
                                              !std::is_same_v<S, T> &&
                                              !std::is_same_v<S, Interned> &&
                                              std::is_convertible_v<const T&, std::string_view>) {
    return std::string_view(a.get()) == std::string_view(b);
  }

 private:
  static const T& empty_value() noexcept {
    static const T empty{};
    return empty;
  }

  std::shared_ptr<const T> held_;
};

}  // namespace rg::client
