// ShortString: a string of 8 bytes for members of cached projections that are short or usually
// empty: a condition's status ("True", "False", "Unknown": inline) and its reason and message
// (empty on a healthy pod: nothing allocated). Up to 7 characters live inline; longer text takes
// one heap block holding its size and characters. A CompactString costs 16 bytes, a std::string
// 32.
//
// Read it as a std::string_view (implicit conversion, view(), data(), size()), compare it with
// strings and literals, hash it; build it from any string. str() or std::string(text) makes a
// std::string.
#pragma once

#include <bit>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <new>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

namespace rg::client {

class ShortString;

/// Any string type other than ShortString itself that reads as a std::string_view.
template <class S>
concept NotShortString = std::is_convertible_v<const S&, std::string_view> &&
    !std::is_same_v<std::remove_cvref_t<S>, ShortString>;

class ShortString {
 public:
  static constexpr std::size_t kInlineCapacity = 7;

  ShortString() noexcept = default;
  ShortString(std::string_view text) { init(text); }  // NOLINT: like std::string
  ShortString(const char* text) : ShortString(std::string_view(text)) {}         // NOLINT: same
  ShortString(const std::string& text) : ShortString(std::string_view(text)) {}  // NOLINT: same
  ShortString(const ShortString& other) { init(other.view()); }
  ShortString(ShortString&& other) noexcept : word_(other.word_) { other.word_ = 0; }
  ShortString& operator=(const ShortString& other) {
    if (this != &other) *this = ShortString(other.view());
    return *this;
  }
  ShortString& operator=(ShortString&& other) noexcept {
    if (this != &other) {
      release();
      word_ = other.word_;
      other.word_ = 0;
    }
    return *this;
  }
  ~ShortString() { release(); }

  /// Replaces the text (`text` may view this string's own characters).
  void assign(std::string_view text) { *this = ShortString(text); }

  const char* data() const noexcept {
    if (const char* block = heap_block()) return block + sizeof(std::uint32_t);
    return inline_chars();
  }
  std::size_t size() const noexcept {
    if (const char* block = heap_block()) {
      std::uint32_t size = 0;
      std::memcpy(&size, block, sizeof size);
      return size;
    }
    return static_cast<std::size_t>((word_ & 0xff) >> 1);
  }
  bool empty() const noexcept { return word_ == 0; }
  std::string_view view() const noexcept { return {data(), size()}; }
  operator std::string_view() const noexcept { return view(); }  // NOLINT: reads as a string
  operator std::string() const { return str(); }  // NOLINT(google-explicit-constructor): same
  std::string str() const { return std::string(view()); }

  /// True when the text is kept inline (no heap block); an empty string is inline.
  bool is_inline() const noexcept { return heap_block() == nullptr; }

  friend bool operator==(const ShortString& a, const ShortString& b) noexcept {
    return a.view() == b.view();
  }
  friend std::strong_ordering operator<=>(const ShortString& a, const ShortString& b) noexcept {
    return a.view() <=> b.view();
  }
  template <NotShortString S>
  friend bool operator==(const ShortString& a, const S& b) noexcept {
    return a.view() == std::string_view(b);
  }
  template <NotShortString S>
  friend std::strong_ordering operator<=>(const ShortString& a, const S& b) noexcept {
    return a.view() <=> std::string_view(b);
  }

 private:
  // One word: zero when empty; with its lowest bit set, inline text (the low byte holds the size
  // times two plus one, the other seven bytes the characters); otherwise a pointer to a heap
  // block (a uint32 size, then the characters), which operator new aligns, so its bit is clear.
  static_assert(sizeof(std::uintptr_t) == 8, "ShortString is laid out for 64-bit pointers");
  static_assert(std::endian::native == std::endian::little ||
                std::endian::native == std::endian::big);
  static constexpr std::size_t kCharsOffset = std::endian::native == std::endian::little ? 1 : 0;

  const char* inline_chars() const noexcept {
    return reinterpret_cast<const char*>(&word_) + kCharsOffset;
  }
  const char* heap_block() const noexcept {
    return (word_ & 1) == 0 ? reinterpret_cast<const char*>(word_) : nullptr;
  }

  void init(std::string_view text) {
    if (text.empty()) return;
    if (text.size() <= kInlineCapacity) {
      word_ = (text.size() << 1) | 1;
      std::memcpy(reinterpret_cast<char*>(&word_) + kCharsOffset, text.data(), text.size());
      return;
    }
    if (text.size() > UINT32_MAX) throw std::length_error("ShortString: text longer than 4 GiB");
    auto* block = static_cast<char*>(::operator new(sizeof(std::uint32_t) + text.size()));
    const auto size = static_cast<std::uint32_t>(text.size());
    std::memcpy(block, &size, sizeof size);
    std::memcpy(block + sizeof size, text.data(), text.size());
    word_ = reinterpret_cast<std::uintptr_t>(block);
  }

  void release() noexcept {
    if (const char* block = heap_block()) ::operator delete(const_cast<char*>(block));
  }

  std::uintptr_t word_ = 0;
};

static_assert(sizeof(ShortString) == 8);

inline std::ostream& operator<<(std::ostream& out, const ShortString& text) {
  return out << text.view();
}

}  // namespace rg::client

template <>
struct std::hash<rg::client::ShortString> {
  std::size_t operator()(const rg::client::ShortString& text) const noexcept {
    return std::hash<std::string_view>{}(text.view());
  }
};
