// ConfigError's message: `<file>:<line>: <entry>: <problem> (<hint>)`.
#include "client/config/config_error.hpp"

#include <fmt/format.h>

namespace rg::client {
namespace {

std::string format_message(const std::string& file, int line, const std::string& entry,
                           const std::string& problem, const std::string& hint) {
  std::string out = file.empty() ? std::string("configuration") : file;
  if (line > 0) out += fmt::format(":{}", line);
  out += ": ";
  if (!entry.empty()) out += entry + ": ";
  out += problem;
  if (!hint.empty()) out += " (" + hint + ")";
  return out;
}

}  // namespace

ConfigError::ConfigError(std::string file, int line, std::string entry, std::string problem,
                         const std::string& hint)
    : std::runtime_error(format_message(file, line, entry, problem, hint)),
      file_(std::move(file)),
      line_(line),
      entry_(std::move(entry)),
      problem_(std::move(problem)) {}

}  // namespace rg::client
