// median: the middle of a benchmark's repeated measurements (the upper middle of an even count).
// Header-only, for bench/ executables.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace rg::bench {

/// The median of `values` (taken by value: reordered). `values` must not be empty.
inline double median(std::vector<double> values) {
  const auto half = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), half, values.end());
  return *half;
}

}  // namespace rg::bench
