// The User-Agent string derived from the build's version.
#include "client/version.hpp"

namespace rg {

std::string_view user_agent() {
  static const std::string agent = std::string("replica-guard/") + std::string(kVersion);
  return agent;
}

}  // namespace rg
