// Request body decoding: JSON, YAML and Kubernetes protobuf.
#include "sim/body.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>
#include <boost/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <utility>
#include <vector>

#include "client/model/utf8.hpp"
#include "client/protobuf/decoder.hpp"
#include "sim/api_error.hpp"

namespace rg::sim {
namespace {

namespace json = boost::json;

// What go-yaml, the API server's YAML reader, refuses: bytes that are not UTF-8, and control
// characters. yaml-cpp would keep the first (the stored object's JSON would then be malformed
// for every reader) and read NUL bytes as a UTF-16 or UTF-32 stream.
void check_yaml_text(std::string_view text) {
  if (auto at = client::first_invalid_utf8(text)) {
    throw errors::bad_request(fmt::format(
        "the request body is not valid UTF-8 (byte {}); JSON and YAML bodies must be UTF-8", *at));
  }
  for (std::size_t at = 0; at < text.size(); ++at) {
    const auto c = static_cast<unsigned char>(text[at]);
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) {
      throw errors::bad_request(fmt::format(
          "the request body holds the control character 0x{:02x} (byte {}), which YAML does not "
          "allow; escape it in a double-quoted string",
          c, at));
    }
  }
}

// A YAML string as JSON text: escapes such as "\ud800" can still spell invalid UTF-8.
const std::string& utf8_scalar(const std::string& text) {
  if (client::first_invalid_utf8(text)) {
    throw errors::bad_request(
        "a YAML escape in the request body gives invalid UTF-8 (a lone surrogate?)");
  }
  return text;
}

json::value scalar_to_json(const YAML::Node& node) {
  const std::string& text = utf8_scalar(node.Scalar());
  if (node.Tag() != "?") return json::string(text);  // quoted or explicitly tagged: a string
  if (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL")
    return nullptr;
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  std::int64_t integer = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), integer);
  if (ec == std::errc() && end == text.data() + text.size()) return integer;
  double number = 0;
  auto [dend, dec] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (dec == std::errc() && dend == text.data() + text.size() &&
      text.find_first_of("0123456789") != std::string::npos)
    return number;
  return json::string(text);
}

constexpr std::string_view kAcceptedBodies =
    "application/json, application/yaml, application/vnd.kubernetes.protobuf";

ApiError too_deep() {
  return errors::bad_request(fmt::format(
      "the request body nests deeper than {} levels, kube-sim's limit (the API server's is 10000)",
      kMaxNestingDepth));
}

// `depth`: the levels of maps and sequences `node` sits in.
json::value yaml_to_json(const YAML::Node& node, std::size_t depth) {
  const bool nests = node.Type() == YAML::NodeType::Map || node.Type() == YAML::NodeType::Sequence;
  if (nests && depth >= kMaxNestingDepth) throw too_deep();
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      json::object object;
      for (const auto& entry : node)
        object[utf8_scalar(entry.first.as<std::string>())] = yaml_to_json(entry.second, depth + 1);
      return object;
    }
    case YAML::NodeType::Sequence: {
      json::array array;
      for (const auto& item : node) array.push_back(yaml_to_json(item, depth + 1));
      return array;
    }
    case YAML::NodeType::Scalar:
      return scalar_to_json(node);
    default:
      return nullptr;
  }
}

// Calls `visit(value, depth)` on `value` (depth 0) and on everything inside it, depth first;
// stops early when `visit` returns false. Iterative: the value may nest deeper than the limit it
// is checked against.
template <class Visit>
void walk(const json::value& value, Visit visit) {
  std::vector<std::pair<const json::value*, std::size_t>> pending{{&value, 0}};
  while (!pending.empty()) {
    auto [at, depth] = pending.back();
    pending.pop_back();
    if (!visit(*at, depth)) return;
    if (const auto* object = at->if_object()) {
      for (const auto& entry : *object) pending.emplace_back(&entry.value(), depth + 1);
    } else if (const auto* array = at->if_array()) {
      for (const auto& item : *array) pending.emplace_back(&item, depth + 1);
    }
  }
}

// Boost.JSON reads a number beyond a double's range (1e999) as infinity, which no JSON text can
// carry; the API server's decoder rejects such a number.
bool has_infinite_number(const json::value& value) {
  bool infinite = false;
  walk(value, [&](const json::value& at, std::size_t) {
    const auto* number = at.if_double();
    infinite = number != nullptr && !std::isfinite(*number);
    return !infinite;
  });
  return infinite;
}

}  // namespace

std::size_t nesting_depth(const json::value& value) {
  std::size_t deepest = 0;
  walk(value, [&](const json::value& at, std::size_t depth) {
    if (at.is_object() || at.is_array()) deepest = std::max(deepest, depth + 1);
    return true;
  });
  return deepest;
}

json::value parse_json_or_yaml(std::string_view text) {
  boost::system::error_code ec;
  json::parse_options options;
  options.max_depth = kMaxNestingDepth;
  auto value = json::parse(text, ec, {}, options);
  if (!ec && has_infinite_number(value))
    throw errors::bad_request(
        "the request body has a number out of a 64-bit float's range; write a smaller one, or "
        "quote it as a string");
  if (!ec) return value;
  if (ec == json::error::too_deep) throw too_deep();
  check_yaml_text(text);
  try {
    return yaml_to_json(YAML::Load(std::string(text)), 0);
  } catch (const YAML::Exception& error) {
    throw errors::bad_request(
        fmt::format("the request body is neither JSON nor YAML: {}", error.what()));
  }
}

json::value decode_body(const HttpRequest& request) {
  std::string_view type = request.header("content-type");
  type = type.substr(0, type.find(';'));
  if (type.empty() || type == "application/json" || type == "application/yaml" || type == "*/*")
    return parse_json_or_yaml(request.body);
  if (type != client::protobuf::kContentType) throw errors::unsupported_media_type(kAcceptedBodies);
  client::protobuf::Envelope envelope;
  try {
    envelope = client::protobuf::decode_envelope(request.body);
  } catch (const client::protobuf::ProtobufError& error) {
    throw errors::bad_request(error.what());
  }
  if (client::protobuf::find_schema(envelope.api_version, envelope.kind) == nullptr) {
    auto status = errors::unsupported_media_type(kAcceptedBodies).status();
    status.message = fmt::format(
        "the body of the request was in an unknown format - kube-sim decodes protobuf bodies only "
        "for the kinds it has schemas for, not {} {}; send it as application/json",
        envelope.api_version, envelope.kind);
    throw ApiError(std::move(status));
  }
  try {
    return client::protobuf::decode_object(request.body);
  } catch (const client::protobuf::ProtobufError& error) {
    throw errors::bad_request(error.what());
  }
}

json::object parse_object_body(const HttpRequest& request, std::string_view kind,
                               std::string_view api_version) {
  auto value = decode_body(request);
  if (!value.is_object())
    throw errors::bad_request(fmt::format("the request body must be a {} object", kind));
  auto& object = value.get_object();
  if (const auto* v = object.if_contains("apiVersion");
      v != nullptr && v->is_string() && !v->get_string().empty() && v->get_string() != api_version)
    throw errors::bad_request(
        fmt::format("the API version in the data ({}) does not match the expected API version ({})",
                    std::string_view(v->get_string()), api_version));
  if (const auto* k = object.if_contains("kind");
      k != nullptr && k->is_string() && !k->get_string().empty() && k->get_string() != kind)
    throw errors::bad_request(
        fmt::format("the kind in the data ({}) does not match the expected kind ({})",
                    std::string_view(k->get_string()), kind));
  return std::move(object);
}

}  // namespace rg::sim
