// Names of the delta types, for logs and metrics.
#include "informer/delta.hpp"

namespace rg::informer {

std::string_view to_string(DeltaType type) {
  switch (type) {
    case DeltaType::kAdded:
      return "Added";
    case DeltaType::kUpdated:
      return "Updated";
    case DeltaType::kDeleted:
      return "Deleted";
    case DeltaType::kReplaced:
      return "Replaced";
    case DeltaType::kSync:
      return "Sync";
  }
  return "Unknown";
}

}  // namespace rg::informer
