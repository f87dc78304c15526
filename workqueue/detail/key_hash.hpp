// key_hash.hpp: the work queue's default key hash. std::hash for every key type but strings,
// whose keys ("namespace/name") are short and hashed on every add() and done(): libstdc++'s
// std::hash<std::string> (MurmurHash2) plus the hash table's own post-mixing cost as much as the
// rest of a queue lookup. Strings are hashed here sixteen bytes per step with a 64x64->128-bit
// multiply folded to 64 bits (lo ^ hi), whose output is mixed well enough that the tables skip
// their post-mixing (is_avalanching). Like std::hash it is unseeded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>

namespace rg::workqueue::detail {

template <class Key>
struct KeyHash : std::hash<Key> {};

template <>
struct KeyHash<std::string> {
  using is_avalanching = void;  // boost::unordered's tables then use the hash as it is

  std::size_t operator()(std::string_view s) const noexcept {
    const char* p = s.data();
    std::size_t n = s.size();
    std::uint64_t a = 0;
    std::uint64_t b = 0;
    std::uint64_t h = kSeed ^ n;
    if (n > 16) {
      for (; n > 16; p += 16, n -= 16) h = fold(load64(p) ^ kA, load64(p + 8) ^ h);
      a = load64(p + n - 16);  // the last sixteen bytes, overlapping the previous step
      b = load64(p + n - 8);
    } else if (n >= 8) {
      a = load64(p);
      b = load64(p + n - 8);
    } else if (n >= 4) {
      a = load32(p);
      b = load32(p + n - 4);
    } else if (n > 0) {
      const auto byte = [p](std::size_t i) {
        return std::uint64_t{static_cast<unsigned char>(p[i])};
      };
      a = byte(0) << 16 | byte(n / 2) << 8 | byte(n - 1);
    }
    return static_cast<std::size_t>(fold(a ^ kA, b ^ h ^ kB));
  }

 private:
  // Odd constants with balanced bits (hexadecimal digits of pi).
  static constexpr std::uint64_t kSeed = 0x243f6a8885a308d3;
  static constexpr std::uint64_t kA = 0x13198a2e03707344;
  static constexpr std::uint64_t kB = 0xa4093822299f31d1;

  static std::uint64_t fold(std::uint64_t x, std::uint64_t y) {
    __extension__ using Wide = unsigned __int128;
    const Wide product = static_cast<Wide>(x) * y;
    return static_cast<std::uint64_t>(product) ^ static_cast<std::uint64_t>(product >> 64);
  }
  static std::uint64_t load64(const char* p) {
    std::uint64_t w = 0;
    std::memcpy(&w, p, sizeof w);
    return w;
  }
  static std::uint32_t load32(const char* p) {
    std::uint32_t w = 0;
    std::memcpy(&w, p, sizeof w);
    return w;
  }
};

}  // namespace rg::workqueue::detail
