// ListOptions parsing and validation (apimachinery internalversion/validation), selectors, and
// the continue token codec (apiserver pkg/storage/continue.go).
#include "sim/list_options.hpp"

#include <fmt/format.h>
#include <boost/json.hpp>

#include <algorithm>
#include <array>
#include <charconv>

#include "client/labels/selector_error.hpp"
#include "sim/api_error.hpp"
#include "sim/base64url.hpp"
#include "sim/query_params.hpp"

namespace rg::sim {
namespace {

std::int64_t parse_int(std::string_view name, std::string_view value) {
  std::int64_t number = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), number);
  if (ec != std::errc() || end != value.data() + value.size())
    throw errors::bad_request(
        fmt::format("invalid value for {}: \"{}\": not an integer", name, value));
  return number;
}

FieldError field_forbidden(std::string field, std::string_view detail) {
  return {"FieldValueForbidden", std::move(field), fmt::format("Forbidden: {}", detail)};
}

FieldError field_not_supported(std::string field, std::string_view value,
                               std::string_view supported) {
  return {"FieldValueNotSupported", std::move(field),
          fmt::format("Unsupported value: \"{}\": supported values: {}", value, supported)};
}

// apimachinery's ValidateListOptions (pkg/apis/meta/internalversion/validation), in its order.
void validate(const ListOptions& options, bool watch_list_enabled) {
  std::vector<FieldError> problems;
  const auto& match = options.resource_version_match;
  if (options.watch) {
    if (options.send_initial_events && match != "NotOlderThan")
      problems.push_back(
          field_forbidden("resourceVersionMatch",
                          "sendInitialEvents requires setting resourceVersionMatch to "
                          "NotOlderThan"));
    if (options.send_initial_events && !watch_list_enabled)
      problems.push_back(
          field_forbidden("sendInitialEvents",
                          "sendInitialEvents is forbidden for watch unless the WatchList "
                          "feature gate is enabled"));
    if (!match.empty()) {
      if (!options.send_initial_events)
        problems.push_back(field_forbidden("resourceVersionMatch",
                                           "resourceVersionMatch is forbidden for watch unless "
                                           "sendInitialEvents is provided"));
      if (match != "NotOlderThan")
        problems.push_back(field_not_supported("resourceVersionMatch", match, "\"NotOlderThan\""));
      if (!options.continue_token.empty())
        problems.push_back(field_forbidden(
            "resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided"));
    }
  } else {
    if (!match.empty()) {
      if (!options.resource_version || options.resource_version->empty())
        problems.push_back(
            field_forbidden("resourceVersionMatch",
                            "resourceVersionMatch is forbidden unless resourceVersion is "
                            "provided"));
      if (!options.continue_token.empty())
        problems.push_back(field_forbidden(
            "resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided"));
      if (match == "Exact" && options.resource_version == "0")
        problems.push_back(field_forbidden("resourceVersionMatch",
                                           "resourceVersionMatch \"exact\" is forbidden for "
                                           "resourceVersion \"0\""));
      if (match != "Exact" && match != "NotOlderThan")
        problems.push_back(
            field_not_supported("resourceVersionMatch", match, "\"Exact\", \"NotOlderThan\""));
    }
    if (options.send_initial_events)
      problems.push_back(
          field_forbidden("sendInitialEvents", "sendInitialEvents is forbidden for list"));
  }
  if (!problems.empty()) throw errors::invalid("meta.k8s.io", "ListOptions", "", problems);
}

}  // namespace

bool Selection::matches(const StoredObject& object) const {
  if (!labels.matches(object.labels)) return false;
  return fields.matches([&](std::string_view field) { return object.field(field); });
}

std::uint64_t parse_resource_version(std::string_view text) {
  std::uint64_t number = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (ec != std::errc() || end != text.data() + text.size())
    throw errors::bad_request(fmt::format("invalid resource version \"{}\": not a number", text));
  return number;
}

ListOptions parse_list_options(const HttpRequest& request, const ResourceType& type, bool watch,
                               bool watch_list_enabled) {
  ListOptions options;
  options.watch = watch;
  try {
    if (auto labels = request.param("labelSelector"))
      options.selection.labels = client::LabelSelector::parse(*labels);
    if (auto fields = request.param("fieldSelector"))
      options.selection.fields = client::FieldSelector::parse(*fields);
  } catch (const client::SelectorError& error) {
    throw errors::bad_request(error.what());
  }
  for (const auto& requirement : options.selection.fields.requirements()) {
    const auto& field = requirement.field;
    if (field != "metadata.name" && field != "metadata.namespace" &&
        std::find(type.selectable_fields.begin(), type.selectable_fields.end(), field) ==
            type.selectable_fields.end())
      throw errors::bad_request(fmt::format("field label not supported: {}", field));
  }
  if (auto rv = request.param("resourceVersion")) options.resource_version = std::string(*rv);
  if (auto match = request.param("resourceVersionMatch"))
    options.resource_version_match = std::string(*match);
  if (auto limit = request.param("limit"))
    options.limit = std::max<std::int64_t>(0, parse_int("limit", *limit));
  if (auto token = request.param("continue")) options.continue_token = std::string(*token);
  options.allow_watch_bookmarks = codec_bool(request, "allowWatchBookmarks");
  options.send_initial_events = codec_optional_bool(request, "sendInitialEvents");
  if (auto timeout = request.param("timeoutSeconds"))
    options.timeout_seconds = parse_int("timeoutSeconds", *timeout);
  validate(options, watch_list_enabled);
  return options;
}

std::string encode_continue(const ContinueToken& token) {
  boost::json::object json;
  json["v"] = "meta.k8s.io/v1";
  json["rv"] = token.resource_version ? static_cast<std::int64_t>(*token.resource_version) : -1;
  json["start"] = token.start;
  return base64url_encode(boost::json::serialize(json));
}

std::string encode_continue(std::uint64_t resource_version, std::string_view last_key) {
  std::string start(last_key);
  start.push_back('\0');
  return encode_continue({resource_version, std::move(start)});
}

ContinueToken decode_continue(std::string_view token) {
  auto invalid = [&](std::string_view why) {
    return errors::bad_request(fmt::format("continue key is not valid: {}", why));
  };
  auto decoded = base64url_decode(token);
  if (!decoded) throw invalid("illegal base64 data");
  boost::system::error_code ec;
  auto json = boost::json::parse(*decoded, ec);
  if (ec || !json.is_object()) throw invalid("not a JSON object");
  const auto& object = json.get_object();
  const auto* version = object.if_contains("v");
  if (version == nullptr || !version->is_string() || version->get_string() != "meta.k8s.io/v1")
    throw invalid("incorrect encoded start resourceVersion (version meta.k8s.io/v1)");
  const auto* rv = object.if_contains("rv");
  const auto* start = object.if_contains("start");
  if (rv == nullptr || !rv->is_int64() || start == nullptr || !start->is_string())
    throw invalid("missing rv or start");
  if (rv->get_int64() == 0)
    throw invalid("incorrect encoded start resourceVersion (version meta.k8s.io/v1)");
  if (rv->get_int64() < 0) return {std::nullopt, std::string(start->get_string())};
  return {static_cast<std::uint64_t>(rv->get_int64()), std::string(start->get_string())};
}

}  // namespace rg::sim
