// Finding metadata.resourceVersion with Boost.JSON's event parser (see resource_version.hpp).
#include "client/rest/resource_version.hpp"

#include <boost/json/basic_parser_impl.hpp>

#include <cstdint>

namespace rg::client {

namespace {

namespace json = boost::json;
using json::error_code;

// Follows the nesting of the parse, remembers the last key at each of the two levels it cares
// about, and stops the parser (returns false) once metadata.resourceVersion is read or
// metadata has ended without it.
class ResourceVersionHandler {
 public:
  static constexpr std::size_t max_object_size = std::size_t(-1);
  static constexpr std::size_t max_array_size = std::size_t(-1);
  static constexpr std::size_t max_key_size = std::size_t(-1);
  static constexpr std::size_t max_string_size = std::size_t(-1);

  std::optional<std::string> found;

  bool on_document_begin(error_code&) { return true; }
  bool on_document_end(error_code&) { return true; }
  bool on_array_begin(error_code&) { return enter(false); }
  bool on_array_end(std::size_t, error_code& ec) { return leave(ec); }
  bool on_object_begin(error_code&) { return enter(true); }
  bool on_object_end(std::size_t, error_code& ec) { return leave(ec); }
  bool on_string_part(json::string_view s, std::size_t, error_code&) {
    if (at_resource_version()) value_.append(s.data(), s.size());
    return true;
  }
  bool on_string(json::string_view s, std::size_t, error_code& ec) {
    if (!at_resource_version()) return true;
    value_.append(s.data(), s.size());
    found = std::move(value_);
    ec = json::error::extra_data;  // any error: stop here
    return false;
  }
  bool on_key_part(json::string_view s, std::size_t, error_code&) {
    key_part(s);
    return true;
  }
  bool on_key(json::string_view s, std::size_t, error_code&) {
    key_part(s);
    key_done_ = true;
    key_depth_ = depth_;
    return true;
  }
  bool on_number_part(json::string_view, error_code&) { return true; }
  bool on_int64(std::int64_t, json::string_view, error_code&) { return true; }
  bool on_uint64(std::uint64_t, json::string_view, error_code&) { return true; }
  bool on_double(double, json::string_view, error_code&) { return true; }
  bool on_bool(bool, error_code&) { return true; }
  bool on_null(error_code&) { return true; }
  bool on_comment_part(json::string_view, error_code&) { return true; }
  bool on_comment(json::string_view, error_code&) { return true; }

 private:
  // The top-level object is depth 1, metadata's object depth 2.
  bool enter(bool object) {
    if (object && depth_ == 1 && key_depth_ == 1 && key_ == "metadata") in_metadata_ = true;
    ++depth_;
    return true;
  }
  bool leave(error_code& ec) {
    --depth_;
    if (in_metadata_ && depth_ == 1) {  // metadata ended without it
      ec = json::error::extra_data;
      return false;
    }
    return true;
  }
  void key_part(json::string_view s) {
    if (key_done_) {
      key_.clear();
      key_done_ = false;
    }
    key_.append(s.data(), s.size());
  }
  bool at_resource_version() const {
    return in_metadata_ && depth_ == 2 && key_depth_ == 2 && key_done_ && key_ == "resourceVersion";
  }

  int depth_ = 0;
  int key_depth_ = 0;
  bool in_metadata_ = false;
  bool key_done_ = true;
  std::string key_;
  std::string value_;
};

}  // namespace

std::optional<std::string> find_resource_version(std::string_view object_json) {
  json::basic_parser<ResourceVersionHandler> parser(json::parse_options{});
  error_code ec;
  parser.write_some(false, object_json.data(), object_json.size(), ec);
  return std::move(parser.handler().found);
}

}  // namespace rg::client
