// Boxed<T>: an optional T kept on the heap -- 8 bytes when empty instead of sizeof(T) -- for
// rarely set members of projections an informer caches by the hundred thousand (a container's
// waiting/running/terminated state). Copyable, and read like std::optional: has_value(),
// `if (boxed)`, `->`, `*`.
#pragma once

#include <memory>

namespace rg::client {

template <class T>
class Boxed {
 public:
  using value_type = T;

  Boxed() = default;
  Boxed(const T& value) : value_(std::make_unique<T>(value)) {}  // NOLINT: like std::optional
  Boxed(const Boxed& other) : value_(other ? std::make_unique<T>(*other) : nullptr) {}
  Boxed(Boxed&&) noexcept = default;
  Boxed& operator=(const Boxed& other) {
    if (this != &other) value_ = other ? std::make_unique<T>(*other) : nullptr;
    return *this;
  }
  Boxed& operator=(Boxed&&) noexcept = default;
  ~Boxed() = default;

  bool has_value() const noexcept { return value_ != nullptr; }
  explicit operator bool() const noexcept { return has_value(); }
  const T& operator*() const { return *value_; }
  T& operator*() { return *value_; }
  const T* operator->() const { return value_.get(); }
  T* operator->() { return value_.get(); }

  /// A fresh T (replacing any held one).
  T& emplace() {
    value_ = std::make_unique<T>();
    return *value_;
  }
  void reset() noexcept { value_.reset(); }

 private:
  std::unique_ptr<T> value_;
};

}  // namespace rg::client
