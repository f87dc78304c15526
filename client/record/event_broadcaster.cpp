// The asynchronous event broadcaster (see event_broadcaster.hpp).
#include "client/record/event_broadcaster.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <deque>
#include <mutex>
#include <optional>
#include <random>
#include <stdexcept>

#include "async/condition.hpp"
#include "client/model/time.hpp"
#include "client/rest/api_error.hpp"
#include "client/transport/cancellation.hpp"

namespace rg::client {

namespace asio = boost::asio;
using namespace asio::experimental::awaitable_operators;
using WallClock = std::chrono::system_clock;

namespace {

struct Recorded {
  client::Event event;
  WallClock::time_point at;
};

client::Event make_event(const client::ObjectReference& object, std::string_view type,
                         std::string_view reason, std::string_view message,
                         WallClock::time_point now, const EventBroadcasterConfig& config) {
  client::Event event;
  event.metadata.name = client::event_name(object.name, now);
  event.metadata.namespace_ = object.namespace_.empty() ? "default" : object.namespace_;
  event.involved_object = object;
  event.reason = reason;
  event.message = message;
  event.type = type;
  event.source.component = config.component;
  event.reporting_component = config.component;
  event.reporting_instance = config.instance;
  event.first_timestamp = event.last_timestamp = client::format_time(now);
  event.count = 1;
  return event;
}

std::string describe(const client::Event& e) {
  return fmt::format("{} on {} {}/{}", e.reason, e.involved_object.kind,
                     e.involved_object.namespace_, e.involved_object.name);
}

// A failed write, sorted as client-go's recordEvent sorts it: an answer from the API server (or a
// request that cannot be built) will not change by trying again; no answer might.
struct WriteFailure {
  bool retry = false;
  spdlog::level::level_enum level = spdlog::level::warn;
  std::string what;
};

WriteFailure classify(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const client::ApiError& e) {
    return {false, client::is_already_exists(e) ? spdlog::level::debug : spdlog::level::warn,
            e.what()};
  } catch (const std::invalid_argument& e) {
    return {false, spdlog::level::err, e.what()};
  } catch (const std::exception& e) {
    return {true, spdlog::level::warn, e.what()};
  } catch (...) {
    return {false, spdlog::level::err, "an exception that is not a std::exception"};
  }
}

// Metrics nobody reads, for a broadcaster given none.
class NoMetrics final : public EventBroadcasterMetrics {
 public:
  void written(EventWrite) override {}
  void dropped(EventDrop, std::size_t) override {}
  void queue_depth(std::size_t) override {}
};

// The default log: spdlog's default logger, the fields appended as ` key=value`.
void spdlog_line(spdlog::level::level_enum level, std::string_view message,
                 std::initializer_list<EventLogField> fields) {
  std::string line(message);
  for (const auto& [key, value] : fields) line += fmt::format(" {}={}", key, value);
  spdlog::log(level, "{}", line);
}

EventBroadcasterConfig checked(EventBroadcasterConfig config) {
  if (config.component.empty())
    throw std::invalid_argument(
        "EventBroadcasterConfig.component is empty: name the component that records the Events "
        "(their source.component and reportingComponent)");
  if (!config.log) config.log = spdlog_line;
  return config;
}

}  // namespace

struct EventBroadcaster::State {
  State(EventSink& sink_, EventBroadcasterConfig config_, EventBroadcasterMetrics* metrics_)
      : sink(sink_),
        config(checked(std::move(config_))),
        metrics(metrics_ != nullptr ? *metrics_ : no_metrics),
        correlator(config.correlator) {}

  void log(spdlog::level::level_enum level, std::string_view message,
           std::initializer_list<EventLogField> fields) const {
    config.log(level, message, fields);
  }

  EventSink& sink;
  const EventBroadcasterConfig config;
  NoMetrics no_metrics;
  EventBroadcasterMetrics& metrics;

  // Shared by record() on any thread, start(), shut_down() and the writer: under `mutex`.
  std::mutex mutex;
  std::deque<Recorded> queue;
  bool started = false;
  bool closed = false;                   // shut_down() began or the writer ended: nothing taken
  bool ended = false;                    // the writer has ended
  std::size_t dropped_while_full = 0;    // since the queue last had room: one log line per episode
  async::Condition queued{mutex};        // the writer waits: an Event queued, or closed
  async::Condition writer_ended{mutex};  // shut_down() waits: `ended`
  std::optional<asio::strand<asio::any_io_executor>> strand;

  // The writer's own, used on its strand only (set by start() before the writer begins).
  client::EventCorrelator correlator;
  std::unique_ptr<asio::steady_timer> retry_timer;
  asio::cancellation_signal stop;  // ends the writer at once
  bool writing = false;            // an Event is taken and not yet written or dropped
  std::minstd_rand random{std::random_device{}()};

  // The next Event to write, once one is queued; none once closed and empty.
  asio::awaitable<std::optional<Recorded>> take() {
    std::optional<Recorded> next;
    auto ready = [&] {
      if (queue.empty()) return closed;
      next = std::move(queue.front());
      queue.pop_front();
      metrics.queue_depth(queue.size());
      writing = true;
      return true;
    };
    co_await queued.until(ready);
    co_return next;
  }

  bool is_closed() {
    std::lock_guard lock(mutex);
    return closed;
  }

  asio::awaitable<void> write_all();
  asio::awaitable<void> write(Recorded recorded);
  asio::awaitable<EventWrite> write_once(const client::Event& event);
  void finish(const std::exception_ptr& error);
};

// Takes Events in order until closed and empty, or cancelled.
asio::awaitable<void> EventBroadcaster::State::write_all() {
  for (;;) {
    const auto cancellation = co_await asio::this_coro::cancellation_state;
    if (cancellation.cancelled() != asio::cancellation_type::none) co_return;
    std::optional<Recorded> next = co_await take();
    if (!next) co_return;  // closed and written
    co_await write(std::move(*next));
    writing = false;
  }
}

asio::awaitable<void> EventBroadcaster::State::write(Recorded recorded) {
  const std::string what = describe(recorded.event);
  std::optional<client::Event> event = correlator.correlate(std::move(recorded.event), recorded.at);
  if (!event) {
    metrics.dropped(EventDrop::kSpamFilter, 1);
    log(spdlog::level::debug, "Event held back by the spam filter", {{"event", what}});
    co_return;
  }
  for (int tries = 1;; ++tries) {
    std::exception_ptr error;
    try {
      const EventWrite verb = co_await write_once(*event);
      metrics.written(verb);
      co_return;
    } catch (...) {
      error = std::current_exception();
    }
    if (client::is_cancellation(error)) std::rethrow_exception(error);
    const WriteFailure failure = classify(error);
    if (!failure.retry) {
      metrics.dropped(EventDrop::kRejected, 1);
      log(failure.level, "the API server refused an Event; not retrying",
          {{"event", what}, {"error", failure.what}});
      co_return;
    }
    const bool closing = is_closed();
    if (closing || tries >= config.max_tries) {
      metrics.dropped(closing ? EventDrop::kShutdown : EventDrop::kRetriesExhausted, 1);
      log(spdlog::level::err,
          closing ? "could not write an Event before shutdown; dropping it"
                  : "could not write an Event after every try; dropping it",
          {{"event", what}, {"tries", std::to_string(tries)}, {"error", failure.what}});
      co_return;
    }
    // Randomise the first sleep, so that clients do not all come back at once.
    auto delay = config.retry_sleep;
    if (tries == 1) {
      delay = std::chrono::duration_cast<std::chrono::milliseconds>(
          delay * std::uniform_real_distribution<double>(0, 1)(random));
    }
    log(spdlog::level::warn, "could not write an Event; will retry",
        {{"event", what},
         {"error", failure.what},
         {"retry_in", fmt::format("{}ms", delay.count())}});
    retry_timer->expires_after(delay);
    // shut_down() cuts the sleep short: the next try is then the Event's last.
    boost::system::error_code ignored;
    co_await retry_timer->async_wait(asio::redirect_error(asio::use_awaitable, ignored));
  }
}

// Creates a new Event; patches a repeat's count onto the first, or creates it again when it has
// expired meanwhile.
asio::awaitable<EventWrite> EventBroadcaster::State::write_once(const client::Event& event) {
  if (event.count > 1) {
    bool gone = false;
    try {
      co_await sink.update_count(event);
    } catch (const client::ApiError& e) {
      if (!client::is_not_found(e)) throw;
      gone = true;
    }
    if (!gone) co_return EventWrite::kPatch;
  }
  co_await sink.create(event);
  co_return EventWrite::kCreate;
}

// The writer has ended: whatever it did not write is dropped, counted and logged.
void EventBroadcaster::State::finish(const std::exception_ptr& error) {
  std::size_t left = 0;
  {
    std::lock_guard lock(mutex);
    closed = true;
    left = queue.size() + (writing ? 1 : 0);
    queue.clear();
    metrics.queue_depth(0);
  }
  writing = false;
  if (error && !client::is_cancellation(error)) {
    try {
      std::rethrow_exception(error);
    } catch (const std::exception& e) {
      log(spdlog::level::err, "the Event writer failed", {{"error", e.what()}});
    } catch (...) {
      log(spdlog::level::err, "the Event writer failed", {});
    }
  }
  if (left > 0) {
    metrics.dropped(EventDrop::kShutdown, left);
    log(spdlog::level::warn, "Events not written before shutdown were dropped",
        {{"dropped", std::to_string(left)}});
  }
  std::lock_guard lock(mutex);  // last: shut_down() returns once the drops are logged
  ended = true;
  writer_ended.notify_all_locked();
}

EventBroadcaster::EventBroadcaster(EventSink& sink, EventBroadcasterConfig config,
                                   EventBroadcasterMetrics* metrics)
    : state_(std::make_shared<State>(sink, std::move(config), metrics)) {}

EventBroadcaster::~EventBroadcaster() {
  const std::shared_ptr<State> s = state_;
  bool running = false;
  {
    std::lock_guard lock(s->mutex);
    s->closed = true;
    running = s->started;
  }
  if (running) asio::dispatch(*s->strand, [s] { s->stop.emit(asio::cancellation_type::terminal); });
}

void EventBroadcaster::record(const ObjectReference& object, std::string_view type,
                              std::string_view reason, std::string_view message) {
  State& s = *state_;
  if (type != "Normal" && type != "Warning") {
    s.metrics.dropped(EventDrop::kInvalid, 1);
    s.log(spdlog::level::err, "not recording an Event of a type other than Normal or Warning",
          {{"type", type},
           {"reason", reason},
           {"namespace", object.namespace_},
           {"name", object.name}});
    return;
  }
  const auto now = s.config.clock();
  Recorded recorded{make_event(object, type, reason, message, now, s.config), now};
  std::optional<EventDrop> dropped;
  bool first_drop = false;
  std::size_t dropped_before = 0;
  std::string what;  // the dropped Event, for the log (the queued one is moved away)
  {
    std::lock_guard lock(s.mutex);
    if (s.closed) {
      dropped = EventDrop::kShutdown;
      what = describe(recorded.event);
    } else if (s.queue.size() >= s.config.queue_size) {
      dropped = EventDrop::kQueueFull;
      first_drop = s.dropped_while_full++ == 0;
      what = describe(recorded.event);
    } else {
      dropped_before = std::exchange(s.dropped_while_full, 0);
      s.queue.push_back(std::move(recorded));
      s.metrics.queue_depth(s.queue.size());
      s.queued.notify_all_locked();
    }
  }
  if (dropped_before > 0) {
    s.log(spdlog::level::info, "the Event queue has room again",
          {{"dropped", std::to_string(dropped_before)}});
  }
  if (!dropped) return;
  s.metrics.dropped(*dropped, 1);
  if (*dropped == EventDrop::kShutdown) {
    s.log(spdlog::level::warn, "Event recorded after shutdown; dropping it",
          {{"event", what}, {"message", message}});
  } else {
    s.log(first_drop ? spdlog::level::warn : spdlog::level::debug,
          "the Event queue is full (the API server is slow or unreachable); dropping Events",
          {{"event", what},
           {"message", message},
           {"queue_size", std::to_string(s.config.queue_size)}});
  }
}

void EventBroadcaster::start(const asio::any_io_executor& executor) {
  const std::shared_ptr<State> s = state_;
  {
    std::lock_guard lock(s->mutex);
    if (s->started || s->closed) return;
    s->started = true;
    s->strand.emplace(asio::make_strand(executor));
    s->retry_timer = std::make_unique<asio::steady_timer>(*s->strand);
  }
  auto done = [s](const std::exception_ptr& error) { s->finish(error); };
  asio::co_spawn(*s->strand, s->write_all(), asio::bind_cancellation_slot(s->stop.slot(), done));
}

asio::awaitable<void> EventBroadcaster::shut_down() {
  const std::shared_ptr<State> s = state_;
  bool started = false;
  std::size_t never_sent = 0;
  {
    std::lock_guard lock(s->mutex);
    const bool first = !s->closed;
    s->closed = true;
    started = s->started;
    if (started) {
      s->queued.notify_all_locked();  // a writer waiting for Events writes what is queued, ends
    } else if (first) {
      never_sent = s->queue.size();
      s->queue.clear();
      s->metrics.queue_depth(0);
    }
  }
  if (!started) {
    if (never_sent > 0) {
      s->metrics.dropped(EventDrop::kShutdown, never_sent);
      s->log(spdlog::level::warn, "Events recorded but never written (the writer never started)",
             {{"dropped", std::to_string(never_sent)}});
    }
    co_return;
  }
  // Cut the writer's retry sleep short; it then writes what is queued and ends.
  asio::dispatch(*s->strand, [s] { s->retry_timer->cancel(); });
  auto has_ended = [&s] { return s->ended; };
  boost::system::error_code timer_error;
  asio::steady_timer deadline(co_await asio::this_coro::executor, s->config.flush_timeout);
  auto flushed = s->writer_ended.until(has_ended);
  auto expired = deadline.async_wait(asio::redirect_error(asio::use_awaitable, timer_error));
  const auto first = co_await (std::move(flushed) || std::move(expired));
  if (first.index() == 0) co_return;
  s->log(spdlog::level::warn, "writing the queued Events at shutdown ran out of time",
         {{"flush_timeout", fmt::format("{}ms", s->config.flush_timeout.count())}});
  asio::dispatch(*s->strand, [s] { s->stop.emit(asio::cancellation_type::terminal); });
  co_await s->writer_ended.until(has_ended);
}

}  // namespace rg::client
