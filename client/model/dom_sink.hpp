// DomSink: a sink building a boost::json::value losslessly (every number form, key order and
// duplicate-free objects as Boost.JSON keeps them), bottom-up on a value_stack.
#pragma once

#include <boost/json/value.hpp>
#include <boost/json/value_stack.hpp>

#include "client/model/value_sink.hpp"

namespace rg::client::detail {

/// The target of start() is a boost::json::value, unless a subclass overrides complete().
class DomSink : public ValueSink {
 public:
  void start(void* target) override;
  bool object_begin() override;
  bool object_end(std::size_t size) override;
  bool array_begin() override;
  bool array_end(std::size_t size) override;
  bool key(std::string_view key) override;
  bool string(std::string_view value) override;
  bool int64(std::int64_t value) override;
  bool uint64(std::uint64_t value) override;
  bool float64(double value) override;
  bool boolean(bool value) override;
  bool null() override;
  const SinkError& error() const override { return error_; }

 protected:
  /// The whole value was read: stores it into the target (false, after fail(), rejects it).
  virtual bool complete(boost::json::value&& value);
  void* target() const noexcept { return target_; }
  bool fail(std::string path, std::string message);

 private:
  bool closed();
  bool scalar();

  boost::json::value_stack stack_;
  void* target_ = nullptr;
  std::size_t depth_ = 0;
  SinkError error_;
};

}  // namespace rg::client::detail
