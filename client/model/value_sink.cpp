// The DOM sink (lossless boost::json::value building through value_stack), replaying a DOM value
// into any sink, and the path helpers of sink errors.
#include "client/model/value_sink.hpp"

#include <boost/json/value.hpp>
#include <boost/json/value_stack.hpp>

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

bool emit(const boost::json::value& value, ValueSink& sink, bool& skip_next) {
  if (skip_next) {
    skip_next = false;
    return true;
  }
  switch (value.kind()) {
    case boost::json::kind::object: {
      if (!sink.object_begin()) return false;
      for (const auto& entry : value.get_object()) {
        if (!sink.key(entry.key()) || !emit(entry.value(), sink, skip_next)) return false;
      }
      return sink.object_end(value.get_object().size());
    }
    case boost::json::kind::array: {
      if (!sink.array_begin()) return false;
      for (const auto& element : value.get_array()) {
        if (!emit(element, sink, skip_next)) return false;
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
  bool skip_next = false;
  sink.set_skip_flag(&skip_next);
  return emit(value, sink, skip_next);
}

namespace {

// Builds the value bottom-up on a value_stack: containers are pushed when they end, with the
// element count the parser reports.
class DomSink final : public ValueSink {
 public:
  void start(void* target) override {
    target_ = static_cast<boost::json::value*>(target);
    stack_.reset();
    depth_ = 0;
  }
  bool object_begin() override {
    ++depth_;
    return true;
  }
  bool object_end(std::size_t size) override {
    stack_.push_object(size);
    return closed();
  }
  bool array_begin() override {
    ++depth_;
    return true;
  }
  bool array_end(std::size_t size) override {
    stack_.push_array(size);
    return closed();
  }
  bool key(std::string_view key) override {
    stack_.push_key(key);
    return true;
  }
  bool string(std::string_view value) override {
    stack_.push_string(value);
    return scalar();
  }
  bool int64(std::int64_t value) override {
    stack_.push_int64(value);
    return scalar();
  }
  bool uint64(std::uint64_t value) override {
    stack_.push_uint64(value);
    return scalar();
  }
  bool float64(double value) override {
    stack_.push_double(value);
    return scalar();
  }
  bool boolean(bool value) override {
    stack_.push_bool(value);
    return scalar();
  }
  bool null() override {
    stack_.push_null();
    return scalar();
  }
  const SinkError& error() const override { return error_; }

 private:
  bool closed() {
    if (--depth_ == 0) *target_ = stack_.release();
    return true;
  }
  bool scalar() {
    if (depth_ == 0) *target_ = stack_.release();
    return true;
  }

  boost::json::value_stack stack_;
  boost::json::value* target_ = nullptr;
  std::size_t depth_ = 0;
  SinkError error_;
};

}  // namespace

std::unique_ptr<ValueSink> make_dom_sink() { return std::make_unique<DomSink>(); }

}  // namespace rg::client::detail
