// The error constructors of apimachinery's pkg/api/errors, with its exact messages.
#include "sim/api_error.hpp"

#include <fmt/format.h>

namespace rg::sim {
namespace {

namespace reason = client::reason;

client::Status failure(int code, std::string_view why, std::string message) {
  client::Status status;
  status.status = "Failure";
  status.code = code;
  status.reason = std::string(why);
  status.message = std::move(message);
  return status;
}

client::StatusDetails details_of(const ResourceType& type, std::string_view name) {
  client::StatusDetails details;
  details.name = std::string(name);
  details.group = type.group;
  details.kind = type.resource;
  return details;
}

ApiError with_details(client::Status status, client::StatusDetails details) {
  status.details = std::move(details);
  return ApiError(std::move(status));
}

}  // namespace

ApiError::ApiError(client::Status status)
    : std::runtime_error(status.message), status_(std::move(status)) {}

namespace errors {

ApiError not_found(const ResourceType& type, std::string_view name) {
  return with_details(failure(404, reason::kNotFound,
                              fmt::format("{} \"{}\" not found", type.group_resource(), name)),
                      details_of(type, name));
}

ApiError already_exists(const ResourceType& type, std::string_view name) {
  return with_details(failure(409, reason::kAlreadyExists,
                              fmt::format("{} \"{}\" already exists", type.group_resource(), name)),
                      details_of(type, name));
}

ApiError conflict(const ResourceType& type, std::string_view name) {
  return conflict_message(type, name,
                          "the object has been modified; please apply your changes to the latest "
                          "version and try again");
}

ApiError conflict_message(const ResourceType& type, std::string_view name,
                          std::string_view message) {
  return with_details(failure(409, reason::kConflict,
                              fmt::format("Operation cannot be fulfilled on {} \"{}\": {}",
                                          type.group_resource(), name, message)),
                      details_of(type, name));
}

ApiError invalid(std::string_view group, std::string_view kind, std::string_view name,
                 const std::vector<FieldError>& field_errors) {
  std::vector<std::string> parts;
  client::StatusDetails details;
  details.name = std::string(name);
  details.group = std::string(group);
  details.kind = std::string(kind);
  for (const auto& error : field_errors) {
    parts.push_back(fmt::format("{}: {}", error.field, error.detail));
    details.causes.push_back({error.reason, error.detail, error.field});
  }
  std::string aggregate =
      parts.size() == 1 ? parts.front() : fmt::format("[{}]", fmt::join(parts, ", "));
  std::string group_kind = group.empty() ? std::string(kind) : fmt::format("{}.{}", kind, group);
  return with_details(failure(422, reason::kInvalid,
                              fmt::format("{} \"{}\" is invalid: {}", group_kind, name, aggregate)),
                      std::move(details));
}

ApiError bad_request(std::string_view message) {
  return ApiError(failure(400, reason::kBadRequest, std::string(message)));
}

ApiError method_not_allowed(std::string_view verb, const ResourceType& type) {
  client::StatusDetails details;
  details.group = type.group;
  details.kind = type.resource;
  return with_details(failure(405, reason::kMethodNotAllowed,
                              fmt::format("{} is not supported on resources of kind \"{}\"", verb,
                                          type.group_resource())),
                      std::move(details));
}

ApiError unsupported_media_type(std::string_view accepted) {
  return ApiError(failure(415, reason::kUnsupportedMediaType,
                          fmt::format("the body of the request was in an unknown format - "
                                      "accepted media types include: {}",
                                      accepted)));
}

ApiError not_acceptable(std::string_view accepted) {
  return ApiError(
      failure(406, reason::kNotAcceptable,
              fmt::format("only the following media types are accepted: {}", accepted)));
}

ApiError expired(std::string_view message) {
  return ApiError(failure(410, reason::kExpired, std::string(message)));
}

ApiError inconsistent_continue(std::string continue_token) {
  auto status = failure(
      410, reason::kExpired,
      "The provided continue parameter is too old to display a consistent list result. You can "
      "start a new list without the continue parameter, or use the continue token in this "
      "response to retrieve the remainder of the results. Continuing with the provided token "
      "results in an inconsistent list - objects that were created, modified, or deleted "
      "between the time the first chunk was returned and now may show up in the list.");
  status.continue_ = std::move(continue_token);
  return ApiError(std::move(status));
}

ApiError too_large_resource_version(std::uint64_t requested, std::uint64_t current) {
  client::StatusDetails details;
  details.causes.push_back({"ResourceVersionTooLarge", "Too large resource version", ""});
  details.retry_after_seconds = 1;
  return with_details(failure(504, reason::kTimeout,
                              fmt::format("Timeout: Too large resource version: {}, current: {}",
                                          requested, current)),
                      std::move(details));
}

ApiError request_entity_too_large(std::string_view detail) {
  return ApiError(failure(413, reason::kRequestEntityTooLarge,
                          fmt::format("Request entity too large: {}", detail)));
}

ApiError internal(std::string_view message) {
  client::StatusDetails details;
  details.causes.push_back({"", std::string(message), ""});
  return with_details(
      failure(500, reason::kInternalError, fmt::format("Internal error occurred: {}", message)),
      std::move(details));
}

ApiError namespace_terminating(const ResourceType& type, std::string_view name,
                               std::string_view namespace_) {
  client::Status status;
  status.status = "Failure";
  status.code = 403;
  status.reason = "Forbidden";
  status.message = fmt::format(
      "{} \"{}\" is forbidden: unable to create new content in namespace {} because it is being "
      "terminated",
      type.group_resource(), name, namespace_);
  status.details = client::StatusDetails{std::string(name), type.group, type.resource, "", {}, 0};
  return ApiError(std::move(status));
}

ApiError too_many_requests(std::string_view message, int retry_after_seconds) {
  client::StatusDetails details;
  details.retry_after_seconds = retry_after_seconds;
  return with_details(
      failure(429, reason::kTooManyRequests, fmt::format("Too many requests: {}", message)),
      std::move(details));
}

ApiError service_unavailable(std::string_view message) {
  return ApiError(failure(503, reason::kServiceUnavailable, std::string(message)));
}

ApiError path_not_found() {
  client::StatusDetails details;
  return with_details(
      failure(404, reason::kNotFound, "the server could not find the requested resource"),
      std::move(details));
}

}  // namespace errors
}  // namespace rg::sim
