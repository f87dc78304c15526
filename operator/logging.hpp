// Logging for the operator: spdlog with a text or JSON line format (--log-format), levels from
// -v, and structured fields (namespace, deployment, action, ...) on the lines that have them.
#pragma once

#include <spdlog/spdlog.h>

#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace rg::op {

enum class LogFormat { kText, kJson };

/// Parses "text" or "json"; throws std::invalid_argument naming the value otherwise.
LogFormat parse_log_format(std::string_view text);

/// Installs the default logger on stderr: info by default, debug with -v, trace with -vvv.
void setup_logging(LogFormat format, int verbosity);

/// A formatter for spdlog lines in `format` (exposed for tests).
std::unique_ptr<spdlog::formatter> make_log_formatter(LogFormat format);

using LogField = std::pair<std::string_view, std::string_view>;

/// Logs `message` with fields: text lines read `message key=value ...`, JSON lines carry each
/// field as a key of its own.
void log(spdlog::level::level_enum level, std::string_view message,
         std::initializer_list<LogField> fields);

}  // namespace rg::op
