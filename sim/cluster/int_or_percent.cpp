// IntOrString scaling (see int_or_percent.hpp).
#include "sim/cluster/int_or_percent.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace rg::sim::cluster {

bool is_percent(const boost::json::value& value) {
  return value.is_string() && !value.get_string().empty() && value.get_string().back() == '%';
}

std::int64_t scaled_value(const boost::json::value& value, std::int64_t total, bool round_up) {
  if (value.is_int64()) return value.get_int64();
  if (value.is_string()) {
    const std::string text(value.get_string());
    try {
      if (is_percent(value)) {
        const double percent = std::stod(text.substr(0, text.size() - 1));
        const double scaled = percent * static_cast<double>(total) / 100.0;
        return static_cast<std::int64_t>(round_up ? std::ceil(scaled) : std::floor(scaled));
      }
      return std::stoll(text);
    } catch (const std::logic_error&) {
    }
    throw std::invalid_argument("invalid value for IntOrString: invalid value \"" + text + "\"");
  }
  throw std::invalid_argument("invalid type: neither int nor percentage");
}

}  // namespace rg::sim::cluster
