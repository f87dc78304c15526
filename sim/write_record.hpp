// WriteRecord: kube-sim's log of every write that reached the API through HTTP -- verb, object,
// user, field manager, User-Agent, time, outcome, the resulting resourceVersion, and the fields
// a reliability check needs (a Deployment's spec.replicas and annotations, a Lease's holder).
// Served at /sim/writes for tests that audit what clients did (test/reliability's invariant
// checker); rejected writes are kept too, with their status code, so an attempt that failed
// still counts as having left its client. Writes the simulated cluster makes directly in the
// store are not API requests and are not recorded. Bounded: the oldest entries go first, and
// `dropped` says how many went. Thread-safe.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/http_types.hpp"
#include "sim/stored_object.hpp"

namespace rg::sim {

struct RecordedWrite {
  std::uint64_t sequence = 0;  ///< 1, 2, ... in the order the server finished them
  double time = 0;             ///< when it was done: wall clock, Unix seconds with microseconds
  double received = 0;         ///< when the request arrived (before any injected delay)
  std::string verb;            ///< create, update, patch, delete
  std::string method;
  std::string path;
  std::string group;
  std::string resource;
  std::string subresource;
  std::string namespace_;
  std::string name;
  std::string user;
  std::string field_manager;
  std::string user_agent;
  int code = 0;                          ///< the HTTP status answered
  std::string resource_version;          ///< of the written object; empty when rejected
  std::optional<std::int64_t> replicas;  ///< Deployments: spec.replicas
  std::vector<std::pair<std::string, std::string>> annotations;  ///< Deployments
  std::optional<std::string> holder_identity;                    ///< Leases: spec.holderIdentity
  std::optional<std::int64_t> lease_duration_seconds;            ///< Leases
};

class WriteRecord {
 public:
  explicit WriteRecord(std::size_t capacity = 200000) : capacity_(capacity) {}

  /// A write the API server carried out: `object` is the result (for a subresource, the parent).
  void written(const HttpRequest& request, const StoredObject& object, int code);
  /// A write request answered with an error (`code`), by the API or by an injected fault.
  void rejected(const HttpRequest& request, int code);

  /// Entries with sequence > `after`, oldest first.
  std::vector<RecordedWrite> since(std::uint64_t after) const;
  std::uint64_t dropped() const;
  void clear();

  /// The /sim/writes admin route: GET [?since=N] answers {"writes":[...],"dropped":N,"last":N};
  /// DELETE forgets everything recorded.
  HttpResponse serve(const HttpRequest& request);

 private:
  void append(RecordedWrite entry);

  std::size_t capacity_;
  mutable std::mutex mutex_;
  std::deque<RecordedWrite> entries_;
  std::uint64_t next_sequence_ = 1;
  std::uint64_t dropped_ = 0;
};

}  // namespace rg::sim
