// Text and JSON log lines with structured fields (see logging.hpp).
//
// A structured line travels through spdlog as one payload: the message, then each field as
// "\x1fkey\x1evalue". The formatters below render that as " key=value" or as JSON keys; lines
// logged with plain spdlog calls have no fields and render the same way.
#include "operator/logging.hpp"

#include <spdlog/details/fmt_helper.h>
#include <spdlog/sinks/stdout_sinks.h>

#include <chrono>
#include <stdexcept>

#include "client/model/time.hpp"

namespace rg::op {

namespace {

constexpr char kFieldSep = '\x1f';
constexpr char kValueSep = '\x1e';

void append(spdlog::memory_buf_t& out, std::string_view text) {
  out.append(text.data(), text.data() + text.size());
}

void append_json_string(spdlog::memory_buf_t& out, std::string_view text) {
  out.push_back('"');
  for (const char c : text) {
    switch (c) {
      case '"':
        append(out, "\\\"");
        break;
      case '\\':
        append(out, "\\\\");
        break;
      case '\n':
        append(out, "\\n");
        break;
      case '\r':
        append(out, "\\r");
        break;
      case '\t':
        append(out, "\\t");
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x",
                        static_cast<unsigned>(static_cast<unsigned char>(c)));
          append(out, buf);
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
}

void append_timestamp(spdlog::memory_buf_t& out, spdlog::log_clock::time_point when) {
  append(out, client::format_micro_time(when));
}

// Calls on_message(text) then on_field(key, value) for each field of a payload.
template <class OnMessage, class OnField>
void split_payload(std::string_view payload, OnMessage on_message, OnField on_field) {
  std::size_t sep = payload.find(kFieldSep);
  on_message(payload.substr(0, sep));
  while (sep != std::string_view::npos) {
    const std::size_t next = payload.find(kFieldSep, sep + 1);
    const std::string_view field =
        payload.substr(sep + 1, next == std::string_view::npos ? next : next - sep - 1);
    const std::size_t eq = field.find(kValueSep);
    on_field(field.substr(0, eq),
             eq == std::string_view::npos ? std::string_view{} : field.substr(eq + 1));
    sep = next;
  }
}

class TextFormatter final : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& out) override {
    append_timestamp(out, msg.time);
    out.push_back(' ');
    const auto level = spdlog::level::to_string_view(msg.level);
    append(out, std::string_view(level.data(), level.size()));
    out.push_back(' ');
    split_payload(
        std::string_view(msg.payload.data(), msg.payload.size()),
        [&](std::string_view text) { append(out, text); },
        [&](std::string_view key, std::string_view value) {
          out.push_back(' ');
          append(out, key);
          out.push_back('=');
          const bool quote = value.empty() || value.find_first_of(" \"=") != std::string_view::npos;
          if (quote) {
            append_json_string(out, value);
          } else {
            append(out, value);
          }
        });
    out.push_back('\n');
  }
  std::unique_ptr<spdlog::formatter> clone() const override {
    return std::make_unique<TextFormatter>();
  }
};

class JsonFormatter final : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& out) override {
    append(out, "{\"ts\":\"");
    append_timestamp(out, msg.time);
    append(out, "\",\"level\":");
    const auto level = spdlog::level::to_string_view(msg.level);
    append_json_string(out, std::string_view(level.data(), level.size()));
    split_payload(
        std::string_view(msg.payload.data(), msg.payload.size()),
        [&](std::string_view text) {
          append(out, ",\"msg\":");
          append_json_string(out, text);
        },
        [&](std::string_view key, std::string_view value) {
          out.push_back(',');
          append_json_string(out, key);
          out.push_back(':');
          append_json_string(out, value);
        });
    append(out, "}\n");
  }
  std::unique_ptr<spdlog::formatter> clone() const override {
    return std::make_unique<JsonFormatter>();
  }
};

}  // namespace

LogFormat parse_log_format(std::string_view text) {
  if (text == "text") return LogFormat::kText;
  if (text == "json") return LogFormat::kJson;
  throw std::invalid_argument("--log-format \"" + std::string(text) + "\" is not text or json");
}

std::unique_ptr<spdlog::formatter> make_log_formatter(LogFormat format) {
  if (format == LogFormat::kJson) return std::make_unique<JsonFormatter>();
  return std::make_unique<TextFormatter>();
}

void setup_logging(LogFormat format, int verbosity) {
  auto logger = std::make_shared<spdlog::logger>("replica-guard",
                                                 std::make_shared<spdlog::sinks::stderr_sink_mt>());
  logger->set_formatter(make_log_formatter(format));
  logger->set_level(verbosity >= 3   ? spdlog::level::trace
                    : verbosity >= 1 ? spdlog::level::debug
                                     : spdlog::level::info);
  logger->flush_on(spdlog::level::info);
  spdlog::set_default_logger(std::move(logger));
}

void log(spdlog::level::level_enum level, std::string_view message,
         std::initializer_list<LogField> fields) {
  if (!spdlog::should_log(level)) return;
  std::string payload(message);
  for (const auto& [key, value] : fields) {
    payload += kFieldSep;
    payload += key;
    payload += kValueSep;
    payload += value;
  }
  spdlog::log(level, "{}", payload);
}

}  // namespace rg::op
