// The Reflector's state machine (see reflector_state.hpp for the states and where errors go).
#include "informer/reflector_state.hpp"

#include <cmath>
#include <stdexcept>
#include <utility>

namespace rg::informer::reflector {

namespace {

template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};
template <class... F>
Overloaded(F...) -> Overloaded<F...>;

constexpr std::string_view kNotOlderThan = "NotOlderThan";

Health health_for(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kForbidden:
      return Health::kForbidden;
    case ErrorKind::kUnauthorized:
      return Health::kUnauthorized;
    case ErrorKind::kTooManyRequests:
      return Health::kThrottled;
    default:
      return Health::kFailing;
  }
}

}  // namespace

std::string_view to_string(Health health) {
  switch (health) {
    case Health::kHealthy:
      return "healthy";
    case Health::kForbidden:
      return "forbidden";
    case Health::kUnauthorized:
      return "unauthorized";
    case Health::kThrottled:
      return "throttled";
    case Health::kFailing:
      return "failing";
  }
  return "unknown";
}

std::string_view phase_name(const Phase& phase) {
  return std::visit(Overloaded{
                        [](const Empty&) { return std::string_view("Empty"); },
                        [](const InitPage&) { return std::string_view("InitPage"); },
                        [](const InitialWatch&) { return std::string_view("InitialWatch"); },
                        [](const InitListed&) { return std::string_view("InitListed"); },
                        [](const Watching&) { return std::string_view("Watching"); },
                        [](const Backoff&) { return std::string_view("Backoff"); },
                    },
                    phase);
}

ReflectorStateMachine::ReflectorStateMachine(Config config, std::function<Clock::time_point()> now,
                                             std::function<double()> random01)
    : config_(config),
      now_(std::move(now)),
      random01_(std::move(random01)),
      backoff_(config_.backoff, now_, random01_),
      watch_list_enabled_(config_.use_watch_list) {
  if (config_.page_size <= 0) {
    throw std::invalid_argument("reflector: page_size must be positive (the API's list limit)");
  }
  if (config_.min_watch_timeout < std::chrono::seconds(1)) {
    throw std::invalid_argument("reflector: min_watch_timeout must be at least one second");
  }
}

Actions ReflectorStateMachine::step(Input input) {
  Actions out;
  std::visit(Overloaded{
                 [&](Start) {
                   if (std::holds_alternative<Empty>(phase_)) start_list(out, true);
                 },
                 [&](ListPage& page) { on_list_page(out, std::move(page)); },
                 [&](WatchOpened) {
                   if (auto* listed = std::get_if<InitListed>(&phase_)) {
                     phase_ = Watching{listed->resource_version};
                     healthy(out);
                   }
                 },
                 [&](WatchEvent& event) { on_event(out, std::move(event)); },
                 [&](StreamEnded) { on_stream_ended(out); },
                 [&](const Error& error) { on_error(out, error); },
                 [&](TimerFired) { on_timer(out); },
             },
             input);
  return out;
}

std::string ReflectorStateMachine::relist_resource_version() const {
  if (last_sync_rv_unavailable_) return "";  // the last RV is too old: consistent read
  if (last_sync_rv_.empty()) return "0";     // first list: any recent state (watch cache)
  return last_sync_rv_;                      // not older than what we have seen
}

std::int64_t ReflectorStateMachine::watch_timeout_seconds() const {
  const double min_seconds = std::chrono::duration<double>(config_.min_watch_timeout).count();
  return static_cast<std::int64_t>(std::floor(min_seconds * (1.0 + random01_())));
}

void ReflectorStateMachine::start_list(Actions& out, bool allow_watch_list) {
  if (allow_watch_list && watch_list_enabled_) {
    WatchRequest request;
    request.resource_version = last_sync_rv_unavailable_ ? "" : last_sync_rv_;
    request.resource_version_match = kNotOlderThan;
    request.send_initial_events = true;
    request.timeout_seconds = watch_timeout_seconds();
    phase_ = InitialWatch{{}, now_() + config_.initial_events_timeout};
    out.emplace_back(IssueWatch{std::move(request)});
    out.emplace_back(Wait{config_.initial_events_timeout});
    return;
  }
  ListRequest request;
  request.resource_version = relist_resource_version();
  if (!request.resource_version.empty() && request.resource_version != "0") {
    request.resource_version_match = kNotOlderThan;
  }
  request.limit = config_.page_size;
  phase_ = InitPage{"", {}, request.resource_version};
  out.emplace_back(IssueList{std::move(request)});
}

void ReflectorStateMachine::start_watch(Actions& out) {
  WatchRequest request;
  request.resource_version = last_sync_rv_;
  request.timeout_seconds = watch_timeout_seconds();
  phase_ = InitListed{last_sync_rv_};
  out.emplace_back(IssueWatch{std::move(request)});
}

void ReflectorStateMachine::synced(Actions& out, std::vector<Object> objects,
                                   std::string resource_version) {
  last_sync_rv_ = resource_version;
  last_sync_rv_unavailable_ = false;
  out.emplace_back(StoreReplace{std::move(objects), std::move(resource_version)});
  healthy(out);
}

void ReflectorStateMachine::healthy(Actions& out) {
  if (health_ == Health::kHealthy) return;
  health_ = Health::kHealthy;
  last_problem_log_.reset();
  out.emplace_back(ReportStatus{Health::kHealthy, "recovered", true});
}

void ReflectorStateMachine::fail(Actions& out, const Error& error, Resume then) {
  const Health health = health_for(error.kind);
  const Clock::duration delay = error.kind == ErrorKind::kTooManyRequests && error.retry_after
                                    ? *error.retry_after
                                    : backoff_.next();
  const Clock::time_point now = now_();
  const bool log =
      health != health_ || !last_problem_log_ || now - *last_problem_log_ >= config_.backoff.max;
  if (log) last_problem_log_ = now;
  health_ = health;
  phase_ = Backoff{delay, then};
  out.emplace_back(ReportStatus{health, error.message, log});
  out.emplace_back(Wait{delay});
}

void ReflectorStateMachine::on_list_page(Actions& out, ListPage page) {
  auto* paging = std::get_if<InitPage>(&phase_);
  if (!paging) return;
  paging->objects.insert(paging->objects.end(), std::make_move_iterator(page.objects.begin()),
                         std::make_move_iterator(page.objects.end()));
  if (!page.continue_token.empty()) {
    paging->continue_token = page.continue_token;
    ListRequest request;
    request.limit = config_.page_size;
    request.continue_token = std::move(page.continue_token);
    out.emplace_back(IssueList{std::move(request)});
    return;
  }
  std::vector<Object> objects = std::move(paging->objects);
  synced(out, std::move(objects), std::move(page.resource_version));
  start_watch(out);
}

void ReflectorStateMachine::on_event(Actions& out, WatchEvent event) {
  if (auto* initial = std::get_if<InitialWatch>(&phase_)) {
    if (event.type == EventType::kAdded || event.type == EventType::kModified) {
      initial->objects.push_back(std::move(event.object));
    } else if (event.type == EventType::kBookmark && event.initial_events_end) {
      std::vector<Object> objects = std::move(initial->objects);
      out.emplace_back(CancelTimer{});
      synced(out, std::move(objects), event.resource_version);
      phase_ = Watching{std::move(event.resource_version)};
    }
    return;
  }
  if (auto* listed = std::get_if<InitListed>(&phase_)) {
    phase_ = Watching{listed->resource_version};  // an event means the watch is open
    healthy(out);
  }
  auto* watching = std::get_if<Watching>(&phase_);
  if (!watching) return;
  switch (event.type) {
    case EventType::kAdded:
      out.emplace_back(StoreAdd{std::move(event.object)});
      break;
    case EventType::kModified:
      out.emplace_back(StoreUpdate{std::move(event.object)});
      break;
    case EventType::kDeleted:
      out.emplace_back(StoreDelete{std::move(event.object)});
      break;
    case EventType::kDropped:
      out.emplace_back(StoreForget{std::move(event.key)});
      break;
    case EventType::kBookmark:
      break;
  }
  if (!event.resource_version.empty()) {
    watching->resource_version = event.resource_version;
    last_sync_rv_ = std::move(event.resource_version);
  }
}

void ReflectorStateMachine::on_stream_ended(Actions& out) {
  if (std::holds_alternative<InitialWatch>(phase_)) {
    out.emplace_back(CancelTimer{});
    start_list(out, false);  // no initial-events-end: this round falls back to LIST
  } else if (std::holds_alternative<Watching>(phase_)) {
    start_watch(out);  // a normal end (timeoutSeconds): watch again from where we are
  } else if (std::holds_alternative<InitListed>(phase_)) {
    fail(out, Error{ErrorKind::kTransport, "the watch stream closed before it opened", {}},
         Resume::kWatch);
  }
}

void ReflectorStateMachine::on_error(Actions& out, const Error& error) {
  if (auto* paging = std::get_if<InitPage>(&phase_)) {
    // An expired continue token, or a list at an RV the server no longer has: relist at once as
    // a consistent read. A 410 on a consistent first page backs off instead of spinning.
    if (error.kind == ErrorKind::kGone &&
        (!paging->continue_token.empty() || !paging->resource_version.empty())) {
      last_sync_rv_unavailable_ = true;
      start_list(out, false);
      return;
    }
    fail(out, error, Resume::kRelist);
  } else if (std::holds_alternative<InitialWatch>(phase_)) {
    if (error.kind == ErrorKind::kWatchListRefused || error.kind == ErrorKind::kGone) {
      if (error.kind == ErrorKind::kWatchListRefused) watch_list_enabled_ = false;
      if (error.kind == ErrorKind::kGone) last_sync_rv_unavailable_ = true;
      out.emplace_back(CancelTimer{});
      start_list(out, false);
      return;
    }
    fail(out, error, Resume::kRelist);
  } else if (std::holds_alternative<InitListed>(phase_) ||
             std::holds_alternative<Watching>(phase_)) {
    if (error.kind == ErrorKind::kGone) {
      start_list(out, true);  // relist from the last RV first (not a consistent read yet)
      return;
    }
    fail(out, error, Resume::kWatch);
  }
}

void ReflectorStateMachine::on_timer(Actions& out) {
  if (auto* initial = std::get_if<InitialWatch>(&phase_)) {
    if (now_() < initial->deadline) return;  // a stale timer
    out.emplace_back(CloseStream{});
    start_list(out, false);
  } else if (auto* waiting = std::get_if<Backoff>(&phase_)) {
    if (waiting->then == Resume::kRelist) {
      start_list(out, true);
    } else {
      start_watch(out);
    }
  }
}

}  // namespace rg::informer::reflector
