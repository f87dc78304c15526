// Replaying a DOM value into any sink, and the path helpers of sink errors.
#include "client/model/value_sink.hpp"

#include <boost/json/value.hpp>

namespace rg::client::detail {

std::string join_path(std::string_view prefix, std::string_view path) {
  std::string out(prefix);
  if (!out.empty() && !path.empty() && path.front() != '[') out.push_back('.');
  out.append(path);
  return out;
}

std::string SinkError::describe(std::string_view prefix) const {
  const std::string where = join_path(prefix, path);
  if (where.empty()) return message;
  return where + ": " + message;
}

std::string_view name_of(JsonType type) {
  switch (type) {
    case JsonType::kObject:
      return "object";
    case JsonType::kArray:
      return "array";
    case JsonType::kString:
      return "string";
    case JsonType::kNumber:
      return "number";
    case JsonType::kBoolean:
      return "boolean";
    case JsonType::kNull:
      return "null";
  }
  return "value";
}

namespace {

bool emit(const boost::json::value& value, ValueSink& sink) {
  if (sink.take_skip_request()) return true;
  switch (value.kind()) {
    case boost::json::kind::object: {
      if (!sink.object_begin()) return false;
      for (const auto& entry : value.get_object()) {
        if (!sink.key(entry.key()) || !emit(entry.value(), sink)) return false;
      }
      return sink.object_end(value.get_object().size());
    }
    case boost::json::kind::array: {
      if (!sink.array_begin()) return false;
      for (const auto& element : value.get_array()) {
        if (!emit(element, sink)) return false;
      }
      return sink.array_end(value.get_array().size());
    }
    case boost::json::kind::string:
      return sink.string(value.get_string());
    case boost::json::kind::int64:
      return sink.int64(value.get_int64());
    case boost::json::kind::uint64:
      return sink.uint64(value.get_uint64());
    case boost::json::kind::double_:
      return sink.float64(value.get_double());
    case boost::json::kind::bool_:
      return sink.boolean(value.get_bool());
    case boost::json::kind::null:
      return sink.null();
  }
  return false;
}

}  // namespace

bool replay(const boost::json::value& value, ValueSink& sink) {
  sink.use_own_skip_flag();
  return emit(value, sink);
}

}  // namespace rg::client::detail
