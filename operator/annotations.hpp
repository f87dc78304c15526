// The replica-guard.io annotations on a Deployment (their keys, and parsing their values), and the
// field manager its writes carry.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rg::op {

/// "true" opts a Deployment in; anything else (or absence) opts it out.
inline constexpr std::string_view kEnabledAnnotation = "replica-guard.io/enabled";
/// The serving replicas the user wants; recorded from spec.replicas on first sight.
inline constexpr std::string_view kDesiredAnnotation = "replica-guard.io/desired-replicas";
/// The most the operator adds on top of desired: an absolute count ("2") or a percentage ("25%").
inline constexpr std::string_view kMaxSurgeAnnotation = "replica-guard.io/max-surge";
/// Per-Deployment override of --node-grace-period, as a duration ("45s", "2m").
inline constexpr std::string_view kNodeGraceAnnotation = "replica-guard.io/node-grace-period";
/// The spec.replicas the operator last recorded: written right after each of its scales (and on
/// first sight, and on adoption). A spec.replicas that differs was set by someone else, and is
/// adopted as the new desired count -- unless the operator's field manager still owns
/// spec.replicas: then it is the operator's own scale whose record is not written yet.
inline constexpr std::string_view kAppliedAnnotation = "replica-guard.io/applied-replicas";

/// The managedFields manager of the operator's writes (the fieldManager of its PATCHes).
inline constexpr std::string_view kFieldManager = "replica-guard";

/// An absolute count or a percentage, like a Deployment's maxSurge.
struct IntOrPercent {
  std::int32_t value = 0;
  bool percent = false;

  /// "3" or "25%". Throws std::invalid_argument naming the text on anything else.
  static IntOrPercent parse(std::string_view text);
  /// Resolved against a total, percentages rounded up (as Kubernetes rounds maxSurge).
  std::int32_t resolve(std::int32_t total) const;
  std::string to_string() const;
};

/// A non-negative replica count ("3"); std::nullopt if the text is not one.
std::optional<std::int32_t> parse_replicas(std::string_view text);

/// A Go-style duration ("30s", "1m30s", "500ms", "2h"). Throws std::invalid_argument naming the
/// text on anything else.
std::chrono::milliseconds parse_duration(std::string_view text);

}  // namespace rg::op
