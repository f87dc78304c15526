// Encoding of verb options.
#include "client/rest/options.hpp"

#include <boost/json.hpp>

#include <stdexcept>

namespace rg::client {

std::string_view content_type(PatchType type) {
  switch (type) {
    case PatchType::kJson:
      return "application/json-patch+json";
    case PatchType::kMerge:
      return "application/merge-patch+json";
    case PatchType::kStrategicMerge:
      return "application/strategic-merge-patch+json";
    case PatchType::kApply:
      return "application/apply-patch+yaml";
  }
  return "application/merge-patch+json";
}

Query to_query(const GetOptions& options) {
  Query query;
  query.set_if("resourceVersion", options.resource_version);
  return query;
}

Query to_query(const ListOptions& options) {
  Query query;
  query.set_if("labelSelector", options.label_selector);
  query.set_if("fieldSelector", options.field_selector);
  if (options.limit > 0) query.set("limit", std::to_string(options.limit));
  query.set_if("continue", options.continue_);
  query.set_if("resourceVersion", options.resource_version);
  query.set_if("resourceVersionMatch", options.resource_version_match);
  if (options.timeout_seconds)
    query.set("timeoutSeconds", std::to_string(*options.timeout_seconds));
  return query;
}

Query to_query(const WatchOptions& options) {
  Query query;
  query.set("watch", "true");
  query.set_if("labelSelector", options.label_selector);
  query.set_if("fieldSelector", options.field_selector);
  query.set_if("resourceVersion", options.resource_version);
  query.set_if("resourceVersionMatch", options.resource_version_match);
  if (options.allow_watch_bookmarks) query.set("allowWatchBookmarks", "true");
  if (options.send_initial_events) {
    query.set("sendInitialEvents", *options.send_initial_events ? "true" : "false");
  }
  if (options.timeout_seconds)
    query.set("timeoutSeconds", std::to_string(*options.timeout_seconds));
  return query;
}

Query to_query(const WriteOptions& options) {
  Query query;
  query.set_if("fieldManager", options.field_manager);
  query.set_if("fieldValidation", options.field_validation);
  if (options.dry_run) query.set("dryRun", "All");
  return query;
}

Query to_query(const PatchOptions& options, PatchType type) {
  if (type == PatchType::kApply && options.field_manager.empty()) {
    throw std::invalid_argument(
        "server-side apply needs PatchOptions::field_manager (the server answers 422 without "
        "it)");
  }
  if (type != PatchType::kApply && options.force) {
    throw std::invalid_argument("PatchOptions::force is only allowed for server-side apply");
  }
  Query query;
  query.set_if("fieldManager", options.field_manager);
  query.set_if("fieldValidation", options.field_validation);
  if (options.force) query.set("force", *options.force ? "true" : "false");
  if (options.dry_run) query.set("dryRun", "All");
  return query;
}

std::string delete_body(const DeleteOptions& options) {
  boost::json::object body;
  if (options.grace_period_seconds) body["gracePeriodSeconds"] = *options.grace_period_seconds;
  boost::json::object preconditions;
  if (!options.preconditions.uid.empty()) preconditions["uid"] = options.preconditions.uid;
  if (!options.preconditions.resource_version.empty()) {
    preconditions["resourceVersion"] = options.preconditions.resource_version;
  }
  if (!preconditions.empty()) body["preconditions"] = std::move(preconditions);
  if (!options.propagation_policy.empty()) body["propagationPolicy"] = options.propagation_policy;
  if (options.dry_run) body["dryRun"] = boost::json::array{"All"};
  if (body.empty()) return {};
  boost::json::object full;
  full["kind"] = "DeleteOptions";
  full["apiVersion"] = "v1";
  for (auto& [key, value] : body) full[key] = std::move(value);
  return boost::json::serialize(full);
}

}  // namespace rg::client
