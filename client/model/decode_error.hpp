// DecodeError: JSON from the wire that cannot be decoded (invalid JSON, a kept field of the wrong
// type, a missing required field, a truncated stream, an oversized event). The message names the
// field path, e.g. `status.conditions[2].status: expected string, got number`.
#pragma once

#include <stdexcept>

namespace rg::client {

class DecodeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace rg::client
