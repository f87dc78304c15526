// JSON encoding and decoding of metav1.Status.
#include "client/rest/status.hpp"

#include <boost/json.hpp>

#include <stdexcept>

namespace rg::client {
namespace {

namespace json = boost::json;

void put_if(json::object& out, std::string_view key, const std::string& value) {
  if (!value.empty()) out[key] = value;
}

// Reads an optional string field; false when present with another type.
bool read_string(const json::object& in, std::string_view key, std::string& out) {
  const auto* field = in.if_contains(key);
  if (field == nullptr || field->is_null()) return true;
  const auto* text = field->if_string();
  if (text == nullptr) return false;
  out.assign(text->data(), text->size());
  return true;
}

// Reads an optional int32 field; false when present with another type or out of range.
bool read_int32(const json::object& in, std::string_view key, std::int32_t& out) {
  const auto* field = in.if_contains(key);
  if (field == nullptr || field->is_null()) return true;
  json::error_code ec;
  const auto number = field->to_number<std::int32_t>(ec);
  if (ec) return false;
  out = number;
  return true;
}

json::object cause_to_json(const StatusCause& cause) {
  json::object out;
  put_if(out, "reason", cause.reason);
  put_if(out, "message", cause.message);
  put_if(out, "field", cause.field);
  return out;
}

json::object details_to_json(const StatusDetails& details) {
  json::object out;
  put_if(out, "name", details.name);
  put_if(out, "group", details.group);
  put_if(out, "kind", details.kind);
  put_if(out, "uid", details.uid);
  if (!details.causes.empty()) {
    json::array causes;
    for (const auto& cause : details.causes) causes.emplace_back(cause_to_json(cause));
    out["causes"] = std::move(causes);
  }
  if (details.retry_after_seconds != 0) out["retryAfterSeconds"] = details.retry_after_seconds;
  return out;
}

std::optional<StatusDetails> details_from_json(const json::object& in) {
  StatusDetails details;
  if (!read_string(in, "name", details.name) || !read_string(in, "group", details.group) ||
      !read_string(in, "kind", details.kind) || !read_string(in, "uid", details.uid) ||
      !read_int32(in, "retryAfterSeconds", details.retry_after_seconds)) {
    return std::nullopt;
  }
  if (const auto* causes = in.if_contains("causes"); causes != nullptr && !causes->is_null()) {
    const auto* list = causes->if_array();
    if (list == nullptr) return std::nullopt;
    for (const auto& item : *list) {
      const auto* object = item.if_object();
      if (object == nullptr) return std::nullopt;
      StatusCause cause;
      if (!read_string(*object, "reason", cause.reason) ||
          !read_string(*object, "message", cause.message) ||
          !read_string(*object, "field", cause.field)) {
        return std::nullopt;
      }
      details.causes.push_back(std::move(cause));
    }
  }
  return details;
}

}  // namespace

json::value to_json(const Status& status) {
  json::object out;
  out["kind"] = "Status";
  out["apiVersion"] = "v1";
  json::object metadata;
  put_if(metadata, "resourceVersion", status.resource_version);
  put_if(metadata, "continue", status.continue_);
  out["metadata"] = std::move(metadata);
  put_if(out, "status", status.status);
  put_if(out, "message", status.message);
  put_if(out, "reason", status.reason);
  if (status.details) out["details"] = details_to_json(*status.details);
  if (status.code != 0) out["code"] = status.code;
  return out;
}

std::optional<Status> status_from_json(const json::value& value) {
  const auto* in = value.if_object();
  if (in == nullptr) return std::nullopt;
  const auto* kind = in->if_contains("kind");
  if (kind == nullptr || !kind->is_string() || kind->get_string() != "Status") return std::nullopt;
  Status status;
  if (!read_string(*in, "status", status.status) || !read_string(*in, "message", status.message) ||
      !read_string(*in, "reason", status.reason) || !read_int32(*in, "code", status.code)) {
    return std::nullopt;
  }
  if (const auto* metadata = in->if_contains("metadata"); metadata != nullptr) {
    if (const auto* meta = metadata->if_object()) {
      if (!read_string(*meta, "resourceVersion", status.resource_version) ||
          !read_string(*meta, "continue", status.continue_)) {
        return std::nullopt;
      }
    }
  }
  if (const auto* details = in->if_contains("details"); details != nullptr && !details->is_null()) {
    const auto* object = details->if_object();
    if (object == nullptr) return std::nullopt;
    status.details = details_from_json(*object);
    if (!status.details) return std::nullopt;
  }
  return status;
}

std::optional<Status> parse_status(std::string_view body) {
  json::error_code ec;
  const auto value = json::parse(body, ec);
  if (ec) return std::nullopt;
  return status_from_json(value);
}

void tag_invoke(const json::value_from_tag&, json::value& json, const Status& status) {
  json = to_json(status);
}

Status tag_invoke(const json::value_to_tag<Status>&, const json::value& json) {
  auto status = status_from_json(json);
  if (!status) throw std::invalid_argument("JSON value is not a Kubernetes Status object");
  return *std::move(status);
}

}  // namespace rg::client
