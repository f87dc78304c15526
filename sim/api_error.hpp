// ApiError: a Kubernetes API error as an exception carrying its metav1.Status, and the
// constructors apimachinery's pkg/api/errors offers, with the exact messages the API server sends.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "client/rest/status.hpp"
#include "sim/resource_table.hpp"

namespace rg::sim {

class ApiError : public std::runtime_error {
 public:
  explicit ApiError(client::Status status);
  const client::Status& status() const { return status_; }
  int code() const { return status_.code; }

 private:
  client::Status status_;
};

/// One field error of an Invalid (422) error.
struct FieldError {
  std::string reason;  ///< "FieldValueRequired", "FieldValueInvalid", ...
  std::string field;   ///< "metadata.name"
  std::string
      detail;  ///< the cause message, e.g. `Required value: name or generateName is required`
};

namespace errors {

ApiError not_found(const ResourceType& type, std::string_view name);
ApiError already_exists(const ResourceType& type, std::string_view name);
/// The optimistic-lock conflict of an update with a stale resourceVersion.
ApiError conflict(const ResourceType& type, std::string_view name);
/// A 409 Conflict with a free-text message (e.g. a failed delete precondition).
ApiError conflict_message(const ResourceType& type, std::string_view name,
                          std::string_view message);
/// `<Kind>.<group> "<name>" is invalid: <field>: <detail>` (or `[e1, e2]`).
ApiError invalid(std::string_view group, std::string_view kind, std::string_view name,
                 const std::vector<FieldError>& errors);
ApiError bad_request(std::string_view message);
/// 403: a create in a namespace being deleted (the NamespaceLifecycle admission plugin).
ApiError namespace_terminating(const ResourceType& type, std::string_view name,
                               std::string_view namespace_);
ApiError method_not_allowed(std::string_view verb, const ResourceType& type);
ApiError unsupported_media_type(std::string_view accepted);
ApiError not_acceptable(std::string_view accepted);
ApiError expired(std::string_view message);
/// 410 for a continue token whose state is compacted, carrying `continue_token` (which resumes
/// the list at the latest state) in the Status's metadata, as etcd-backed storage answers.
ApiError inconsistent_continue(std::string continue_token);
/// 504 Timeout for a resourceVersion newer than the store's.
ApiError too_large_resource_version(std::uint64_t requested, std::uint64_t current);
/// 413 `Request entity too large: <detail>`.
ApiError request_entity_too_large(std::string_view detail);
ApiError internal(std::string_view message);
ApiError too_many_requests(std::string_view message, int retry_after_seconds);
ApiError service_unavailable(std::string_view message);
/// 404 for a path that names no resource: "the server could not find the requested resource".
ApiError path_not_found();

}  // namespace errors
}  // namespace rg::sim
