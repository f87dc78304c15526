// DomSink: containers are pushed onto the value_stack when they end, with the element count the
// parser reports.
#include "client/model/dom_sink.hpp"

namespace rg::client::detail {

void DomSink::start(void* target) {
  target_ = target;
  stack_.reset();
  depth_ = 0;
}

bool DomSink::object_begin() {
  ++depth_;
  return true;
}

bool DomSink::object_end(std::size_t size) {
  stack_.push_object(size);
  return closed();
}

bool DomSink::array_begin() {
  ++depth_;
  return true;
}

bool DomSink::array_end(std::size_t size) {
  stack_.push_array(size);
  return closed();
}

bool DomSink::key(std::string_view key) {
  stack_.push_key(key);
  return true;
}

bool DomSink::string(std::string_view value) {
  stack_.push_string(value);
  return scalar();
}

bool DomSink::int64(std::int64_t value) {
  stack_.push_int64(value);
  return scalar();
}

bool DomSink::uint64(std::uint64_t value) {
  stack_.push_uint64(value);
  return scalar();
}

bool DomSink::float64(double value) {
  stack_.push_double(value);
  return scalar();
}

bool DomSink::boolean(bool value) {
  stack_.push_bool(value);
  return scalar();
}

bool DomSink::null() {
  stack_.push_null();
  return scalar();
}

bool DomSink::complete(boost::json::value&& value) {
  *static_cast<boost::json::value*>(target_) = std::move(value);
  return true;
}

bool DomSink::fail(std::string path, std::string message) {
  error_.path = std::move(path);
  error_.message = std::move(message);
  return false;
}

bool DomSink::closed() { return --depth_ != 0 || complete(stack_.release()); }

bool DomSink::scalar() { return depth_ != 0 || complete(stack_.release()); }

}  // namespace rg::client::detail
