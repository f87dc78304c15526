// The Kubernetes API's round-trip fixtures (every field populated), in RG_SHARED_DIR/fixtures/
// roundtrip (meson sets RG_SHARED_DIR to ../shared): where they are, reading one, and the doctest
// decorator that registers a test case as skipped -- counted as skipped, never as passed -- when
// they are not there.
//
//   TEST_CASE("a Pod keeps its fields" * rg::testing::skip_without_roundtrip_fixtures()) {
//     auto pod = decode<Pod>(rg::testing::read_roundtrip_fixture("core.v1.Pod.json"));
#pragma once

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace rg::testing {

/// The fixtures' directory, or std::nullopt when RG_SHARED_DIR is unset or holds none.
inline std::optional<std::filesystem::path> roundtrip_fixtures() {
  const char* shared = std::getenv("RG_SHARED_DIR");
  if (shared == nullptr) return std::nullopt;
  std::filesystem::path dir = std::filesystem::path(shared) / "fixtures" / "roundtrip";
  if (!std::filesystem::is_directory(dir)) return std::nullopt;
  return dir;
}

/// The text of a file; throws naming it when it cannot be read.
inline std::string read_text_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

/// The text of fixture `name` (e.g. "core.v1.Pod.json"); throws when it cannot be read.
inline std::string read_roundtrip_fixture(std::string_view name) {
  const auto dir = roundtrip_fixtures();
  if (!dir) throw std::runtime_error("RG_SHARED_DIR/fixtures/roundtrip not found");
  return read_text_file(*dir / name);
}

/// Registers the test case as skipped when the fixtures are not there.
inline doctest::skip skip_without_roundtrip_fixtures() {
  return doctest::skip(!roundtrip_fixtures());
}

}  // namespace rg::testing
