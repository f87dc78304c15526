// ListOptions: the query parameters of a LIST or WATCH, parsed and validated as the API server
// does (metav1.ListOptions and its validation), and the label/field selection they describe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "client/labels/field_selector.hpp"
#include "client/labels/label_selector.hpp"
#include "sim/http_types.hpp"
#include "sim/resource_table.hpp"
#include "sim/stored_object.hpp"

namespace rg::sim {

/// A label and field selector pair, checked against stored objects.
struct Selection {
  client::LabelSelector labels;
  client::FieldSelector fields;
  bool empty() const { return labels.empty() && fields.empty(); }
  bool matches(const StoredObject& object) const;
};

struct ListOptions {
  Selection selection;
  std::optional<std::string> resource_version;  ///< as sent
  std::string resource_version_match;           ///< "", "Exact" or "NotOlderThan"
  std::int64_t limit = 0;                       ///< 0 = no limit
  std::string continue_token;
  bool watch = false;
  bool allow_watch_bookmarks = false;
  std::optional<bool> send_initial_events;
  std::optional<std::int64_t> timeout_seconds;
};

/// Parses and validates; throws ApiError (400 for malformed values and selectors, 422 with the
/// ListOptions.meta.k8s.io messages for forbidden combinations). Without `watch_list_enabled`
/// (kube-apiserver's WatchList feature gate off) a watch's sendInitialEvents is forbidden.
ListOptions parse_list_options(const HttpRequest& request, const ResourceType& type, bool watch,
                               bool watch_list_enabled = true);

/// Parses a resourceVersion; throws 400 when it is not a number.
std::uint64_t parse_resource_version(std::string_view text);

/// A decoded continue token (apiserver pkg/storage/continue.go).
struct ContinueToken {
  /// The list's resourceVersion; nullopt for -1, "continue at the latest state" (the token a
  /// 410 for a compacted continue offers).
  std::optional<std::uint64_t> resource_version;
  std::string start;  ///< the first key to return (the "\u0000"-suffixed key of the last one)
};
/// The continue token as the API server encodes it: base64url (no padding) of
/// {"v":"meta.k8s.io/v1","rv":<rv or -1>,"start":"<start>"}.
std::string encode_continue(const ContinueToken& token);
/// The token of the page after the one ending with `last_key` (relative to the list's prefix).
std::string encode_continue(std::uint64_t resource_version, std::string_view last_key);
/// Throws 400 when the token cannot be decoded.
ContinueToken decode_continue(std::string_view token);

}  // namespace rg::sim
