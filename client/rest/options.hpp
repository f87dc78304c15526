// Options of each verb, mirroring metav1.GetOptions / ListOptions / CreateOptions / UpdateOptions
// / PatchOptions / DeleteOptions, and their encoding as query strings (and, for DELETE, the body).
// Every struct has `timeout`: overrides RestConfig::timeout for that one call.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "client/rest/query.hpp"

namespace rg::client {

using OptionalTimeout = std::optional<std::chrono::milliseconds>;

/// resourceVersionMatch values.
namespace resource_version_match {
inline constexpr std::string_view kNotOlderThan = "NotOlderThan";
inline constexpr std::string_view kExact = "Exact";
}  // namespace resource_version_match

/// propagationPolicy values.
namespace propagation {
inline constexpr std::string_view kOrphan = "Orphan";
inline constexpr std::string_view kBackground = "Background";
inline constexpr std::string_view kForeground = "Foreground";
}  // namespace propagation

struct GetOptions {
  std::string resource_version;  ///< "" = most recent, "0" = any cached
  OptionalTimeout timeout;
};

struct ListOptions {
  std::string label_selector;
  std::string field_selector;
  std::int64_t limit = 0;  ///< page size; 0 = everything at once
  std::string continue_;   ///< token from the previous page's metadata.continue
  std::string resource_version;
  std::string resource_version_match;  ///< resource_version_match::k*, needs resource_version
  std::optional<std::int64_t> timeout_seconds;  ///< server-side limit
  OptionalTimeout timeout;
};

struct WatchOptions {
  std::string label_selector;
  std::string field_selector;
  std::string resource_version;  ///< start after this version ("" = now, "0" = any)
  std::string resource_version_match;
  bool allow_watch_bookmarks = false;
  std::optional<bool> send_initial_events;  ///< watch-list: ADDED for every object, then
                                            ///< the k8s.io/initial-events-end bookmark
  /// The server ends the watch after this long. The client then also gives up on the stream
  /// kWatchDeadlineSlack after that, so a silently dead connection cannot hang it forever.
  std::optional<std::int64_t> timeout_seconds;
  OptionalTimeout timeout;  ///< for the response header only; the stream has no client deadline
                            ///< unless timeout_seconds is set
};

inline constexpr std::chrono::seconds kWatchDeadlineSlack{30};

/// fieldValidation values.
namespace field_validation {
inline constexpr std::string_view kIgnore = "Ignore";
inline constexpr std::string_view kWarn = "Warn";
inline constexpr std::string_view kStrict = "Strict";
}  // namespace field_validation

/// For create (POST) and update (PUT).
struct WriteOptions {
  std::string field_manager;
  std::string field_validation;  ///< field_validation::k*; "" = server default (Warn)
  bool dry_run = false;
  OptionalTimeout timeout;
};
using CreateOptions = WriteOptions;
using UpdateOptions = WriteOptions;

enum class PatchType {
  kJson,            ///< application/json-patch+json (RFC 6902)
  kMerge,           ///< application/merge-patch+json (RFC 7386)
  kStrategicMerge,  ///< application/strategic-merge-patch+json (built-in types only)
  kApply,           ///< application/apply-patch+yaml (server-side apply; needs field_manager)
};

std::string_view content_type(PatchType type);

struct PatchOptions {
  std::string field_manager;  ///< required for kApply
  std::string field_validation;
  std::optional<bool> force;  ///< kApply only: take ownership of conflicting fields
  bool dry_run = false;
  OptionalTimeout timeout;
};

struct Preconditions {
  std::string uid;
  std::string resource_version;
};

struct DeleteOptions {
  std::optional<std::int64_t> grace_period_seconds;
  Preconditions preconditions;
  std::string propagation_policy;  ///< propagation::k*
  bool dry_run = false;
  OptionalTimeout timeout;
};

/// The default options of a verb, as a reference to one constant: the verbs' default arguments
/// (rest_client.hpp) are this rather than `= {}`, because g++ 12 destroys a default argument's
/// temporary twice when the call is inside a co_await expression (free(): invalid pointer).
template <class Options>
const Options& no_options() {
  static const Options options{};
  return options;
}

Query to_query(const GetOptions& options);
Query to_query(const ListOptions& options);
Query to_query(const WatchOptions& options);  ///< includes watch=true
Query to_query(const WriteOptions& options);
/// Throws std::invalid_argument for apply without field_manager, or force on another type.
Query to_query(const PatchOptions& options, PatchType type);
/// The DeleteOptions JSON body, or "" when there is nothing to say.
std::string delete_body(const DeleteOptions& options);

}  // namespace rg::client
