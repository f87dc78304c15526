// EnvelopeSink: routing of inner values, with depth tracking to know when one completes.
#include "client/watch/envelope_sink.hpp"

namespace rg::client::detail {
void EnvelopeSink::route(ValueSink& sink, std::string_view path, std::size_t index) {
  sink.set_skip_flag(skip_flag());
  route_ = &sink;
  route_path_ = path;
  route_index_ = index;
  route_depth_ = 0;
}

bool EnvelopeSink::fail(std::string path, std::string message) {
  error_.path = std::move(path);
  error_.message = std::move(message);
  return false;
}

void EnvelopeSink::reset_routing() {
  route_ = nullptr;
  route_depth_ = 0;
}

// A value starts: outside a route the envelope decides; a route may start here.
bool EnvelopeSink::begin_value(JsonType type) { return route_ != nullptr || own_value(type); }

bool EnvelopeSink::routed(bool ok) {
  if (ok) [[likely]]
    return true;
  return routed_failed();
}

// Out of line: the error path is cold.
bool EnvelopeSink::routed_failed() {
  const SinkError& inner = route_->error();
  std::string prefix(route_path_);
  if (route_index_ != kNoIndex) prefix.append("[").append(std::to_string(route_index_)).append("]");
  return fail(join_path(prefix, inner.path), inner.message);
}

bool EnvelopeSink::after_scalar(bool ok) {
  if (!routed(ok)) return false;
  if (route_depth_ != 0) return true;
  route_ = nullptr;
  return routed_value_done();
}

bool EnvelopeSink::after_end(bool ok) {
  if (!routed(ok)) return false;
  if (--route_depth_ != 0) return true;
  route_ = nullptr;
  return routed_value_done();
}

bool EnvelopeSink::object_begin() {
  if (!begin_value(JsonType::kObject)) return false;
  if (route_ == nullptr) return true;
  ++route_depth_;
  return routed(route_->object_begin());
}

bool EnvelopeSink::object_end(std::size_t size) {
  if (route_ == nullptr) return own_end(JsonType::kObject);
  return after_end(route_->object_end(size));
}

bool EnvelopeSink::array_begin() {
  if (!begin_value(JsonType::kArray)) return false;
  if (route_ == nullptr) return true;
  ++route_depth_;
  return routed(route_->array_begin());
}

bool EnvelopeSink::array_end(std::size_t size) {
  if (route_ == nullptr) return own_end(JsonType::kArray);
  return after_end(route_->array_end(size));
}

bool EnvelopeSink::key(std::string_view key) {
  if (route_ == nullptr) return own_key(key);
  return routed(route_->key(key));
}

bool EnvelopeSink::string(std::string_view value) {
  if (!begin_value(JsonType::kString)) return false;
  return route_ == nullptr || after_scalar(route_->string(value));
}

bool EnvelopeSink::int64(std::int64_t value) {
  if (!begin_value(JsonType::kNumber)) return false;
  return route_ == nullptr || after_scalar(route_->int64(value));
}

bool EnvelopeSink::uint64(std::uint64_t value) {
  if (!begin_value(JsonType::kNumber)) return false;
  return route_ == nullptr || after_scalar(route_->uint64(value));
}

bool EnvelopeSink::float64(double value) {
  if (!begin_value(JsonType::kNumber)) return false;
  return route_ == nullptr || after_scalar(route_->float64(value));
}

bool EnvelopeSink::boolean(bool value) {
  if (!begin_value(JsonType::kBoolean)) return false;
  return route_ == nullptr || after_scalar(route_->boolean(value));
}

bool EnvelopeSink::null() {
  if (!begin_value(JsonType::kNull)) return false;
  return route_ == nullptr || after_scalar(route_->null());
}

}  // namespace rg::client::detail
