// The Reflector's list/watch loop as a pure state machine (kube-rs watcher style): a Phase (one
// of the named states below) plus a few facts remembered across phases, advanced by step(input)
// which returns the actions the driver must perform. No network, no timers, no threads: the
// Reflector (on the network) performs the actions and feeds back what happened as inputs.
//
// The driver keeps at most one request (LIST page or WATCH stream) and one timer in flight:
// IssueList/IssueWatch replace the request in flight, Wait (re)arms the timer, CancelTimer
// disarms it. Inputs that do not belong to the current phase (a late event from an abandoned
// stream, a timer that fired after a state change) are ignored.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "informer/backoff.hpp"

namespace rg::informer::reflector {

using Clock = std::chrono::steady_clock;

/// An object of the watched type, type-erased (the typed Reflector<T> puts shared_ptr<const T>
/// in and casts back); the machine never looks inside.
using Object = std::shared_ptr<const void>;

// ---------------------------------------------------------------------------------------------
// Requests

struct ListRequest {
  std::string resource_version;        ///< "" = consistent read, "0" = any (watch cache)
  std::string resource_version_match;  ///< "" or "NotOlderThan"
  std::int64_t limit = 0;
  std::string continue_token;  ///< set on pages after the first (then resource_version is "")
  friend bool operator==(const ListRequest&, const ListRequest&) = default;
};

struct WatchRequest {
  std::string resource_version;
  std::string resource_version_match;  ///< "NotOlderThan" for a watch-list
  bool allow_watch_bookmarks = true;
  bool send_initial_events = false;  ///< a streaming list (WatchList)
  std::int64_t timeout_seconds = 0;  ///< randomised in [min_watch_timeout, 2 * min_watch_timeout)
  friend bool operator==(const WatchRequest&, const WatchRequest&) = default;
};

// ---------------------------------------------------------------------------------------------
// Inputs

/// Begin (only meaningful in Empty).
struct Start {};

/// One page of a LIST response.
struct ListPage {
  std::vector<Object> objects;
  std::string resource_version;  ///< the list's metadata.resourceVersion
  std::string continue_token;    ///< metadata.continue; "" on the last page
};

/// The WATCH request was accepted (response headers received); events will follow.
struct WatchOpened {};

/// kDropped: an ADDED, MODIFIED or DELETED event whose object the driver could not take in (a
/// projection to the cached type failed): the key leaves the store (StoreForget) and the
/// resourceVersion advances, as for a bookmark.
enum class EventType { kAdded, kModified, kDeleted, kBookmark, kDropped };

struct WatchEvent {
  EventType type;
  Object object;                    ///< null for bookmarks and dropped events
  std::string resource_version;     ///< the object's (or the bookmark's) metadata.resourceVersion
  bool initial_events_end = false;  ///< a bookmark annotated k8s.io/initial-events-end: "true"
  std::string key = {};             ///< the dropped object's "namespace/name" (kDropped only)
};

/// The stream ended without an error (the server's timeoutSeconds elapsed, or it closed).
struct StreamEnded {};

enum class ErrorKind {
  kGone,              ///< 410 Gone / "Expired": the resourceVersion is too old
  kForbidden,         ///< 403
  kUnauthorized,      ///< 401
  kTooManyRequests,   ///< 429 (see retry_after)
  kServerError,       ///< 5xx
  kTransport,         ///< connect/TLS/read failure, malformed stream
  kWatchListRefused,  ///< a 4xx refusal of sendInitialEvents (server without WatchList)
};

struct Error {
  ErrorKind kind;
  std::string message;
  std::optional<Clock::duration> retry_after;  ///< from a 429's Retry-After
};

/// The timer armed by the last Wait fired.
struct TimerFired {};

using Input =
    std::variant<Start, ListPage, WatchOpened, WatchEvent, StreamEnded, Error, TimerFired>;

// ---------------------------------------------------------------------------------------------
// Actions

struct IssueList {
  ListRequest request;
};
struct IssueWatch {
  WatchRequest request;
};
/// Abandon the stream in flight (its further inputs are ignored anyway).
struct CloseStream {};
/// store.replace(objects, resource_version): the result of a complete (re)list.
struct StoreReplace {
  std::vector<Object> objects;
  std::string resource_version;
};
struct StoreAdd {
  Object object;
};
struct StoreUpdate {
  Object object;
};
struct StoreDelete {
  Object object;
};
/// The object under `key` could not be taken in (see EventType::kDropped): the store deletes
/// what it holds for the key, if anything (its final state is unknown).
struct StoreForget {
  std::string key;
};
/// Arm (or re-arm) the timer: feed TimerFired after `delay`.
struct Wait {
  Clock::duration delay;
};
struct CancelTimer {};

enum class Health { kHealthy, kForbidden, kUnauthorized, kThrottled, kFailing };
std::string_view to_string(Health health);

/// The reflector's health changed (or is still bad); `log` is false when the same problem was
/// already logged within the backoff cap (30 s), so a persistent 403 is not a log flood.
struct ReportStatus {
  Health health;
  std::string message;
  bool log = true;
};

using Action = std::variant<IssueList, IssueWatch, CloseStream, StoreReplace, StoreAdd, StoreUpdate,
                            StoreDelete, StoreForget, Wait, CancelTimer, ReportStatus>;
/// What one step asks for, in order. A watch event, the common step, asks for one store write;
/// the few steps that ask for more spill to the heap.
using Actions = boost::container::small_vector<Action, 1>;

// ---------------------------------------------------------------------------------------------
// Phases

/// Nothing in flight yet. Start issues the initial list: a streaming WatchList when enabled
/// (-> InitialWatch), otherwise the first page of a paginated LIST (-> InitPage).
struct Empty {};

/// A paginated LIST in progress: a page request is in flight; `objects` are the pages so far.
/// Errors: 410 at a resourceVersion -> the same list again, at once, as a consistent read (RV "");
/// 410 of an expired continue token -> a fresh consistent list at once; 403/401 -> Backoff with
/// a forbidden/unauthorized status; 429 -> Backoff for Retry-After; 5xx / transport -> Backoff.
/// Every Backoff from here resumes with a relist.
struct InitPage {
  std::string continue_token;
  std::vector<Object> objects;
  std::string resource_version;  ///< the RV the list was started at
};

/// A streaming WatchList in progress: initial ADDED events accumulate in `objects` until the
/// initial-events-end bookmark, which replaces the store and moves on to Watching on the same
/// stream. Errors: refusal of watch-list (4xx) -> paginated LIST, and watch-list stays off;
/// no initial-events-end bookmark by `deadline` or the stream ending early -> paginated LIST
/// for this round; 410 -> paginated LIST as a consistent read; others as in InitPage.
struct InitialWatch {
  std::vector<Object> objects;
  Clock::time_point deadline;
};

/// Have a resourceVersion from a list; the WATCH from it is in flight (not yet opened).
/// Errors: 410 -> relist from the last resourceVersion (and, if that is gone too, a consistent
/// one); 403/401/429/5xx/transport -> Backoff, then the same WATCH again; the stream ending
/// before it opened -> Backoff as well (a server that keeps closing at once must not spin us).
struct InitListed {
  std::string resource_version;
};

/// Watching from `resource_version` (the last event's or bookmark's). Events go to the store.
/// The stream ending (its timeoutSeconds ran out) -> a new WATCH at once (InitListed). A broken
/// stream (transport, 5xx) or 403/401/429 -> Backoff, then InitListed from the last
/// resourceVersion; 410 (an ERROR event or status) -> relist as from InitListed.
struct Watching {
  std::string resource_version;
};

enum class Resume { kRelist, kWatch };

/// Waiting `delay` after a failure; the timer then resumes with a relist or a new WATCH from the
/// last resourceVersion. Delays: BackoffPolicy, or Retry-After for a 429.
struct Backoff {
  Clock::duration delay;
  Resume then;
};

using Phase = std::variant<Empty, InitPage, InitialWatch, InitListed, Watching, Backoff>;
std::string_view phase_name(const Phase& phase);

// ---------------------------------------------------------------------------------------------

struct Config {
  bool use_watch_list = false;  ///< try a streaming WatchList for (re)lists
  std::int64_t page_size = 500;
  Clock::duration initial_events_timeout = std::chrono::seconds(60);
  Clock::duration min_watch_timeout = std::chrono::minutes(5);
  BackoffPolicy::Options backoff{};
};

class ReflectorStateMachine {
 public:
  /// `now` and `random01` (in [0, 1)) drive deadlines, watch timeouts and backoff jitter.
  ReflectorStateMachine(Config config, std::function<Clock::time_point()> now,
                        std::function<double()> random01);

  /// Advances by one input; returns the actions to perform, in order.
  Actions step(Input input);

  const Phase& phase() const { return phase_; }
  /// The resourceVersion the store is at ("" before the first list completes).
  const std::string& last_sync_resource_version() const { return last_sync_rv_; }
  /// False once the server refused a watch-list (or it was never enabled).
  bool watch_list_enabled() const { return watch_list_enabled_; }
  Health health() const { return health_; }

 private:
  void start_list(Actions& out, bool allow_watch_list);
  void start_watch(Actions& out);
  void synced(Actions& out, std::vector<Object> objects, std::string resource_version);
  void fail(Actions& out, const Error& error, Resume then);
  void healthy(Actions& out);
  std::string relist_resource_version() const;
  std::int64_t watch_timeout_seconds() const;

  void on_list_page(Actions& out, ListPage page);
  void on_event(Actions& out, WatchEvent event);
  void on_stream_ended(Actions& out);
  void on_error(Actions& out, const Error& error);
  void on_timer(Actions& out);

  Config config_;
  std::function<Clock::time_point()> now_;
  std::function<double()> random01_;
  BackoffPolicy backoff_;
  Phase phase_ = Empty{};
  std::string last_sync_rv_;
  bool last_sync_rv_unavailable_ = false;  ///< a list at last_sync_rv_ got 410
  bool watch_list_enabled_;
  Health health_ = Health::kHealthy;
  std::optional<Clock::time_point> last_problem_log_;
};

}  // namespace rg::informer::reflector
