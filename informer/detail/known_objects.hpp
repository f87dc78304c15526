// KnownObjects: the view of the cache the DeltaFIFO needs to detect deletions missed during a
// relist and to produce resync deltas (client-go's KeyListerGetter). The Indexer implements it.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "informer/object_key.hpp"

namespace rg::informer::detail {

template <KubeObject T>
class KnownObjects {
 public:
  virtual ~KnownObjects() = default;
  virtual std::vector<std::string> list_keys() const = 0;
  /// Null when the key is not known.
  virtual std::shared_ptr<const T> get_by_key(std::string_view key) const = 0;
};

}  // namespace rg::informer::detail
