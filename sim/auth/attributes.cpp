// Request attributes and the authentication/authorization errors, following apiserver's
// pkg/endpoints/request/requestinfo.go and pkg/endpoints/handlers/responsewriters/errors.go.
#include "sim/auth/attributes.hpp"

#include <fmt/format.h>

#include "sim/json_fields.hpp"
#include "sim/request_info.hpp"

namespace rg::sim::auth {
namespace {

/// The X of a field selector `metadata.name=X` or `metadata.name==X` among its requirements.
std::string name_from_field_selector(std::string_view selector) {
  std::string found;
  while (!selector.empty()) {
    auto comma = selector.find(',');
    auto term = selector.substr(0, comma);
    for (std::string_view prefix : {"metadata.name==", "metadata.name="}) {
      if (term.starts_with(prefix)) {
        found = std::string(term.substr(prefix.size()));
        break;
      }
    }
    if (comma == std::string_view::npos) break;
    selector.remove_prefix(comma + 1);
  }
  return found.find('/') == std::string::npos ? found : std::string();
}

// apiserver escapes HTML in forbidden messages (responsewriters.sanitizer).
std::string sanitize(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '&')
      out += "&amp;";
    else if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else
      out.push_back(c);
  }
  return out;
}

// Go's %q for the strings kube-sim puts in messages (names, paths): quotes and backslashes.
std::string go_quoted(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out + "\"";
}

std::string forbidden_message(const Attributes& a) {
  if (!a.resource_request)
    return fmt::format("User {} cannot {} path {}", go_quoted(a.user.name), a.verb,
                       go_quoted(a.path));
  std::string resource = a.resource;
  if (!a.subresource.empty()) resource += "/" + a.subresource;
  if (!a.namespace_.empty())
    return fmt::format("User {} cannot {} resource {} in API group {} in the namespace {}",
                       go_quoted(a.user.name), a.verb, go_quoted(resource), go_quoted(a.group),
                       go_quoted(a.namespace_));
  return fmt::format("User {} cannot {} resource {} in API group {} at the cluster scope",
                     go_quoted(a.user.name), a.verb, go_quoted(resource), go_quoted(a.group));
}

}  // namespace

Attributes request_attributes(const HttpRequest& request, UserInfo user) {
  const RequestInfo info = parse_request_info(request);
  Attributes attributes;
  attributes.user = std::move(user);
  attributes.verb = info.verb;
  attributes.resource_request = info.is_resource_request;
  if (!info.is_resource_request) {
    attributes.path = request.path;
    return attributes;
  }
  attributes.namespace_ = info.namespace_;
  attributes.group = info.group;
  attributes.version = info.version;
  attributes.resource = info.resource;
  attributes.subresource = info.subresource;
  attributes.name = info.name;
  if (attributes.name.empty() && (info.verb == "list" || info.verb == "watch"))
    if (auto selector = request.param("fieldSelector"))
      attributes.name = name_from_field_selector(*selector);
  return attributes;
}

ApiError forbidden(const Attributes& attributes, std::string_view reason) {
  std::string text = sanitize(forbidden_message(attributes));
  if (!reason.empty()) text = fmt::format("{}: {}", text, reason);
  client::Status status;
  status.status = "Failure";
  status.code = 403;
  status.reason = std::string(client::reason::kForbidden);
  client::StatusDetails details;
  if (!attributes.resource_request || attributes.resource.empty()) {
    status.message = "forbidden: " + text;
  } else {
    const std::string group_resource = attributes.group.empty()
                                           ? attributes.resource
                                           : attributes.resource + "." + attributes.group;
    status.message = attributes.name.empty()
                         ? fmt::format("{} is forbidden: {}", group_resource, text)
                         : fmt::format("{} {} is forbidden: {}", group_resource,
                                       go_quoted(attributes.name), text);
    details.name = attributes.name;
    details.group = attributes.group;
    details.kind = attributes.resource;
  }
  status.details = std::move(details);
  return ApiError(std::move(status));
}

Attributes review_attributes(const boost::json::object& spec, std::string_view kind,
                             UserInfo user) {
  const auto* resource = find_object(spec, "resourceAttributes");
  const auto* non_resource = find_object(spec, "nonResourceAttributes");
  if ((resource == nullptr) == (non_resource == nullptr))
    throw errors::invalid(
        "authorization.k8s.io", kind, "",
        {{"FieldValueInvalid", "spec.resourceAttributes",
          std::string("Invalid value: ") + (resource == nullptr ? "\"null\"" : "\"{...}\"") +
              ": exactly one of nonResourceAttributes or resourceAttributes must be specified"}});
  Attributes attributes;
  attributes.user = std::move(user);
  if (resource != nullptr) {
    attributes.resource_request = true;
    attributes.namespace_ = string_at(*resource, "namespace");
    attributes.verb = string_at(*resource, "verb");
    attributes.group = string_at(*resource, "group");
    attributes.version = string_at(*resource, "version");
    attributes.resource = string_at(*resource, "resource");
    attributes.subresource = string_at(*resource, "subresource");
    attributes.name = string_at(*resource, "name");
  } else {
    attributes.verb = string_at(*non_resource, "verb");
    attributes.path = string_at(*non_resource, "path");
  }
  return attributes;
}

ApiError unauthorized() {
  client::Status status;
  status.status = "Failure";
  status.code = 401;
  status.reason = std::string(client::reason::kUnauthorized);
  status.message = "Unauthorized";
  return ApiError(std::move(status));
}

}  // namespace rg::sim::auth
