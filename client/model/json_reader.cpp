// JsonReader: Boost.JSON's basic_parser with a handler that forwards each event to a ValueSink.
#include "client/model/json_reader.hpp"

#include <boost/json/basic_parser_impl.hpp>
#include <boost/json/error.hpp>

#include <algorithm>
#include <string>

#include "client/model/decode_error.hpp"

namespace rg::client::detail {
namespace {

using boost::json::error_code;

std::string_view view(boost::json::string_view s) { return {s.data(), s.size()}; }

struct SaxHandler {
  static constexpr std::size_t max_object_size = static_cast<std::size_t>(-1);
  static constexpr std::size_t max_array_size = static_cast<std::size_t>(-1);
  static constexpr std::size_t max_key_size = static_cast<std::size_t>(-1);
  static constexpr std::size_t max_string_size = static_cast<std::size_t>(-1);

  explicit SaxHandler(ValueSink& sink) : sink(&sink) {}

  bool check(bool ok, error_code& ec) {
    if (!ok) {
      sink_failed = true;
      ec = boost::system::errc::make_error_code(boost::system::errc::invalid_argument);
    }
    return ok;
  }

  // A value the sink asked to skip: a scalar is dropped; a container raises skip_depth, and
  // until it is back to zero events only move the depth.
  bool skip_scalar() {
    if (skip_depth != 0) return true;
    if (skip_next) {
      skip_next = false;
      return true;
    }
    return false;
  }
  bool skip_container_begin() {
    if (skip_depth != 0 || skip_next) {
      skip_next = false;
      ++skip_depth;
      return true;
    }
    return false;
  }

  bool on_document_begin(error_code&) { return true; }
  bool on_document_end(error_code&) { return true; }
  bool on_object_begin(error_code& ec) {
    return skip_container_begin() || check(sink->object_begin(), ec);
  }
  bool on_object_end(std::size_t n, error_code& ec) {
    if (skip_depth != 0) {
      --skip_depth;
      return true;
    }
    return check(sink->object_end(n), ec);
  }
  bool on_array_begin(error_code& ec) {
    return skip_container_begin() || check(sink->array_begin(), ec);
  }
  bool on_array_end(std::size_t n, error_code& ec) {
    if (skip_depth != 0) {
      --skip_depth;
      return true;
    }
    return check(sink->array_end(n), ec);
  }

  // Keys and strings split across writes arrive as parts; `n` is the length so far.
  bool on_key_part(boost::json::string_view s, std::size_t n, error_code&) {
    if (skip_depth != 0) return true;
    if (n == s.size()) key_buffer.clear();
    key_buffer.append(s.data(), s.size());
    return true;
  }
  bool on_key(boost::json::string_view s, std::size_t n, error_code& ec) {
    if (skip_depth != 0) return true;
    if (n == s.size()) return check(sink->key(view(s)), ec);
    key_buffer.append(s.data(), s.size());
    return check(sink->key(key_buffer), ec);
  }
  bool on_string_part(boost::json::string_view s, std::size_t n, error_code&) {
    if (skip_depth != 0 || skip_next) return true;
    if (n == s.size()) string_buffer.clear();
    string_buffer.append(s.data(), s.size());
    return true;
  }
  bool on_string(boost::json::string_view s, std::size_t n, error_code& ec) {
    if (skip_scalar()) return true;
    if (n == s.size()) return check(sink->string(view(s)), ec);
    string_buffer.append(s.data(), s.size());
    return check(sink->string(string_buffer), ec);
  }

  bool on_number_part(boost::json::string_view, error_code&) { return true; }
  bool on_int64(std::int64_t i, boost::json::string_view, error_code& ec) {
    return skip_scalar() || check(sink->int64(i), ec);
  }
  bool on_uint64(std::uint64_t u, boost::json::string_view, error_code& ec) {
    return skip_scalar() || check(sink->uint64(u), ec);
  }
  bool on_double(double d, boost::json::string_view, error_code& ec) {
    return skip_scalar() || check(sink->float64(d), ec);
  }
  bool on_bool(bool b, error_code& ec) { return skip_scalar() || check(sink->boolean(b), ec); }
  bool on_null(error_code& ec) { return skip_scalar() || check(sink->null(), ec); }
  bool on_comment_part(boost::json::string_view, error_code&) { return true; }
  bool on_comment(boost::json::string_view, error_code&) { return true; }

  ValueSink* sink;
  std::string key_buffer;
  std::string string_buffer;
  bool sink_failed = false;
  bool skip_next = false;      // the sink asked to drop the next value
  std::size_t skip_depth = 0;  // > 0 inside a dropped object or array
};

boost::json::parse_options parse_options() {
  boost::json::parse_options options;
  options.max_depth = kMaxJsonDepth;
  return options;
}

bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

}  // namespace

bool is_json_whitespace(std::string_view data) noexcept {
  return std::all_of(data.begin(), data.end(), is_space);
}

struct JsonReader::Impl {
  Impl(ValueSink& sink, std::size_t max_document_bytes)
      : parser(parse_options(), sink), max_bytes(max_document_bytes) {
    sink.set_skip_flag(&parser.handler().skip_next);
  }

  [[noreturn]] void fail(std::string message) {
    failure = std::move(message);
    throw DecodeError(failure);
  }

  [[noreturn]] void fail(const error_code& ec) {
    if (parser.handler().sink_failed) fail(parser.handler().sink->error().describe());
    if (ec == boost::json::error::incomplete) {
      fail("truncated JSON: the input ends inside a document after " + std::to_string(bytes) +
           " bytes");
    }
    fail("invalid JSON at byte " + std::to_string(bytes) + " of the document: " + ec.message());
  }

  void begin_document() {
    parser.reset();
    parser.handler().sink_failed = false;
    parser.handler().skip_next = false;
    parser.handler().skip_depth = 0;
    in_document = true;
    bytes = 0;
  }

  boost::json::basic_parser<SaxHandler> parser;
  std::size_t max_bytes;
  std::size_t bytes = 0;
  bool in_document = false;
  std::string failure;
};

JsonReader::JsonReader(ValueSink& sink, std::size_t max_document_bytes)
    : impl_(std::make_unique<Impl>(sink, max_document_bytes)) {}

JsonReader::~JsonReader() = default;

bool JsonReader::write(std::string_view& data) {
  Impl& d = *impl_;
  if (!d.failure.empty()) throw DecodeError(d.failure);
  if (!d.in_document) {
    const auto first = std::find_if_not(data.begin(), data.end(), is_space);
    data.remove_prefix(static_cast<std::size_t>(first - data.begin()));
    if (data.empty()) return false;
    d.begin_document();
  }
  while (!data.empty()) {
    std::size_t budget = data.size();
    if (d.max_bytes != 0) budget = std::min(budget, d.max_bytes - d.bytes);
    error_code ec;
    const std::size_t used = d.parser.write_some(true, data.data(), budget, ec);
    d.bytes += used;
    data.remove_prefix(used);
    if (ec) d.fail(ec);
    if (d.parser.done()) {
      d.in_document = false;
      return true;
    }
    if (d.max_bytes != 0 && d.bytes >= d.max_bytes) {
      d.fail("JSON document larger than the limit of " + std::to_string(d.max_bytes) +
             " bytes (raise the limit if such objects are expected)");
    }
  }
  return false;
}

void JsonReader::write_whole(std::string_view json) {
  Impl& d = *impl_;
  if (!d.failure.empty()) throw DecodeError(d.failure);
  d.begin_document();
  error_code ec;
  d.bytes = d.parser.write_some(false, json.data(), json.size(), ec);
  if (ec) d.fail(ec);
  d.in_document = false;
  if (!is_json_whitespace(json.substr(d.bytes))) {
    d.fail("invalid JSON at byte " + std::to_string(d.bytes) + ": data after the document");
  }
}

bool JsonReader::in_document() const noexcept { return impl_->in_document; }

std::size_t JsonReader::document_bytes() const noexcept { return impl_->bytes; }

}  // namespace rg::client::detail
