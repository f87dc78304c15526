// CompactString: an immutable-size string of 16 bytes for the members of typed projections that an
// informer caches by the hundred thousand. Up to 15 characters live inline (a condition's type and
// status, a phase, a node name, a container name); longer text takes one heap block of exactly
// its size. A std::string costs 32 bytes and allocates from 16 characters on (with the allocator's
// rounding on top).
//
// BasicCompactString<Bytes> is the same string in `Bytes` bytes, `Bytes - 1` characters inline:
// the Indexer's store keys its objects by a 40-byte one, so a `namespace/name` key of up to 39
// characters sits in the store's node itself and a lookup reads no separate key block.
//
// Read it as a std::string_view (implicit conversion, view(), data(), size()), compare it with
// strings and literals, hash it, concatenate it with `+` (which makes a std::string); build it
// from any string. str() or std::string(text) makes a std::string.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

namespace rg::client {

template <std::size_t Bytes>
class BasicCompactString;

template <class S>
inline constexpr bool kIsCompactString = false;
template <std::size_t Bytes>
inline constexpr bool kIsCompactString<BasicCompactString<Bytes>> = true;

/// Any string type other than a BasicCompactString that reads as a std::string_view.
template <class S>
concept StringLike =
    std::is_convertible_v<const S&, std::string_view> && !kIsCompactString<std::remove_cvref_t<S>>;

template <std::size_t Bytes>
class BasicCompactString {
  static_assert(Bytes >= 16 && Bytes <= 128,
                "room for a heap pointer and size; a size tag below 0xff");

 public:
  static constexpr std::size_t kInlineCapacity = Bytes - 1;

  BasicCompactString() noexcept = default;
  BasicCompactString(std::string_view text) { init(text); }  // NOLINT: like std::string
  // NOLINTNEXTLINE(google-explicit-constructor): same
  BasicCompactString(const char* text) : BasicCompactString(std::string_view(text)) {}
  // NOLINTNEXTLINE(google-explicit-constructor): same
  BasicCompactString(const std::string& text) : BasicCompactString(std::string_view(text)) {}
  BasicCompactString(const BasicCompactString& other) { init(other.view()); }
  BasicCompactString(BasicCompactString&& other) noexcept {
    std::memcpy(raw_, other.raw_, sizeof raw_);
    other.raw_[kTagByte] = 0;
  }
  BasicCompactString& operator=(const BasicCompactString& other) {
    if (this != &other) assign(other.view());
    return *this;
  }
  BasicCompactString& operator=(BasicCompactString&& other) noexcept {
    if (this != &other) {
      release();
      std::memcpy(raw_, other.raw_, sizeof raw_);
      other.raw_[kTagByte] = 0;
    }
    return *this;
  }
  BasicCompactString& operator=(std::string_view text) {
    assign(text);
    return *this;
  }
  BasicCompactString& operator=(const char* text) { return *this = std::string_view(text); }
  BasicCompactString& operator=(const std::string& text) { return *this = std::string_view(text); }
  ~BasicCompactString() { release(); }

  /// Replaces the text (`text` may view this string's own characters).
  void assign(std::string_view text) {
    BasicCompactString fresh(text);
    *this = std::move(fresh);
  }
  void clear() noexcept {
    release();
    raw_[kTagByte] = 0;
  }

  const char* data() const noexcept { return on_heap() ? heap_pointer() : raw_; }
  std::size_t size() const noexcept {
    if (!on_heap()) return static_cast<unsigned char>(raw_[kTagByte]);
    std::uint32_t size = 0;
    std::memcpy(&size, raw_ + sizeof(char*), sizeof size);
    return size;
  }
  bool empty() const noexcept { return size() == 0; }
  std::string_view view() const noexcept { return {data(), size()}; }
  operator std::string_view() const noexcept { return view(); }  // NOLINT: reads as a string
  /// A copy as a std::string, where one is needed (a `const std::string&` parameter, a
  /// std::string member): ObjectMeta's strings were std::strings, and code written for them keeps
  /// compiling.
  operator std::string() const { return str(); }  // NOLINT(google-explicit-constructor): same
  std::string str() const { return std::string(view()); }

  /// True when the text is kept inline (no heap block).
  bool is_inline() const noexcept { return !on_heap(); }

  // Comparisons and concatenation take any other string-like exactly as it is (a template, so
  // that no conversion competes with CompactString's own converting constructors).
  friend bool operator==(const BasicCompactString& a, const BasicCompactString& b) noexcept {
    return a.view() == b.view();
  }
  friend std::strong_ordering operator<=>(const BasicCompactString& a,
                                          const BasicCompactString& b) noexcept {
    return a.view() <=> b.view();
  }
  template <StringLike S>
  friend bool operator==(const BasicCompactString& a, const S& b) noexcept {
    return a.view() == std::string_view(b);
  }
  template <StringLike S>
  friend std::strong_ordering operator<=>(const BasicCompactString& a, const S& b) noexcept {
    return a.view() <=> std::string_view(b);
  }

  /// Concatenation makes a std::string: `meta.namespace_ + "/" + meta.name`.
  friend std::string operator+(const BasicCompactString& a, const BasicCompactString& b) {
    return concat(a.view(), b.view());
  }
  template <StringLike S>
  friend std::string operator+(const BasicCompactString& a, const S& b) {
    return concat(a.view(), std::string_view(b));
  }
  template <StringLike S>
  friend std::string operator+(const S& a, const BasicCompactString& b) {
    return concat(std::string_view(a), b.view());
  }

 private:
  static constexpr std::size_t kTagByte = Bytes - 1;

  static std::string concat(std::string_view a, std::string_view b) {
    std::string out;
    out.reserve(a.size() + b.size());
    out.append(a).append(b);
    return out;
  }
  static constexpr char kHeapTag = static_cast<char>(0xff);

  bool on_heap() const noexcept { return raw_[kTagByte] == kHeapTag; }
  char* heap_pointer() const noexcept {
    char* pointer = nullptr;
    std::memcpy(&pointer, raw_, sizeof pointer);
    return pointer;
  }

  void init(std::string_view text) {
    if (text.size() <= kInlineCapacity) {
      if (!text.empty()) std::memcpy(raw_, text.data(), text.size());
      raw_[kTagByte] = static_cast<char>(text.size());
      return;
    }
    if (text.size() > UINT32_MAX) {
      throw std::length_error("BasicCompactString: text longer than 4 GiB");
    }
    char* block = new char[text.size()];
    std::memcpy(block, text.data(), text.size());
    const auto size = static_cast<std::uint32_t>(text.size());
    std::memcpy(raw_, &block, sizeof block);
    std::memcpy(raw_ + sizeof block, &size, sizeof size);
    raw_[kTagByte] = kHeapTag;
  }

  void release() noexcept {
    if (on_heap()) delete[] heap_pointer();
  }

  alignas(char*) char raw_[Bytes] = {};
};

using CompactString = BasicCompactString<16>;

static_assert(sizeof(CompactString) == 16);

template <std::size_t Bytes>
std::ostream& operator<<(std::ostream& out, const BasicCompactString<Bytes>& text) {
  return out << text.view();
}

}  // namespace rg::client

template <std::size_t Bytes>
struct std::hash<rg::client::BasicCompactString<Bytes>> {
  std::size_t operator()(const rg::client::BasicCompactString<Bytes>& text) const noexcept {
    return std::hash<std::string_view>{}(text.view());
  }
};
