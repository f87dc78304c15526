// Reflector<T, Wire>: ListAndWatch on the network. It runs the ReflectorStateMachine
// (reflector_state.hpp): performs its actions -- LIST pages and WATCH streams through the
// RestClient, decoded incrementally into Wire (normally T itself) and, when Wire is another type
// (Unstructured), projected into T by the user's function before anything is stored
// (projection.hpp), store writes into the DeltaFIFO, timers -- and feeds back what happened. A full
// DeltaFIFO makes the store writes wait, so the reflector stops reading the socket: back-pressure,
// never a drop.
//
// One request and one timer are in flight at a time; the driver waits on whichever completes
// first (on the request alone when no timer is armed: racing a disarmed timer costs a timer
// and a cancellation exception per stream read). The one timer armed while a stream is read is
// the initial-events timeout of a streaming list; in that phase the state machine only gathers
// objects until the end bookmark, so the reads race the timer in batches (up to the bookmark,
// the stream's end or kInitialEventsBatch events) rather than one race per read. Cancelling
// run() stops everything promptly and closes the stream.
#pragma once

#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "client/model/decode_error.hpp"
#include "client/rest/api_error.hpp"
#include "client/rest/rest_client.hpp"
#include "client/transport/transport_error.hpp"
#include "client/watch/list_decoder.hpp"
#include "client/watch/watch_decoder.hpp"
#include "informer/delta_fifo.hpp"
#include "informer/list_watch_scope.hpp"
#include "informer/object_key.hpp"
#include "informer/projection.hpp"
#include "informer/reflector_observer.hpp"
#include "informer/reflector_state.hpp"

namespace rg::informer {

/// The reflector's health as wait_for_cache_sync and /readyz report it.
struct ReflectorStatus {
  reflector::Health health = reflector::Health::kHealthy;
  std::string message;
};

namespace detail {

/// The state machine's input for a failed request.
reflector::Error classify_error(const std::exception& error, bool watch_list_request);
/// The state machine's input for an ERROR event of a watch stream.
reflector::Error classify_status(const client::Status& status);
/// Logs and records a ReportStatus action.
void report_status(const std::string& resource, const reflector::ReportStatus& report);
/// Logs objects left out of the cache because their projection failed: `count` of them (one
/// watch event, or a LIST page's), the first under `key`.
void report_projection_failure(const std::string& resource, std::size_t count, std::string_view key,
                               std::string_view error);

}  // namespace detail

template <KubeObject T, KubeObject Wire = T>
class Reflector {
 public:
  using ObjectPtr = std::shared_ptr<const T>;
  static constexpr bool kProjects = !std::is_same_v<T, Wire>;

  struct Options {
    ListWatchScope scope;
    reflector::Config machine;
    std::string name;  ///< the resource label of metrics and logs, e.g. "pods"
    /// Makes each cached T from the decoded Wire; required when they differ, unused otherwise.
    ProjectFunc<T, Wire> project = {};
  };

  Reflector(client::RestClient& client, DeltaFIFO<T>& fifo, Options options,
            std::shared_ptr<ReflectorObserver> observer = nullptr)
      : client_(client),
        fifo_(fifo),
        options_(std::move(options)),
        observer_(observer ? std::move(observer) : std::make_shared<ReflectorObserver>()),
        random_(std::random_device{}()),
        machine_(options_.machine, reflector::Clock::now, [this] { return uniform_(random_); }) {
    if (kProjects && !options_.project) {
      throw std::invalid_argument("reflector " + options_.name +
                                  ": a projection function is required to cache another type");
    }
  }

  Reflector(const Reflector&) = delete;
  Reflector& operator=(const Reflector&) = delete;

  /// ListAndWatch until cancelled or the DeltaFIFO is closed.
  boost::asio::awaitable<void> run() {
    using namespace boost::asio::experimental::awaitable_operators;
    std::deque<reflector::Input> inputs{reflector::Start{}};
    for (;;) {
      while (!inputs.empty()) {
        reflector::Input input = std::move(inputs.front());
        inputs.pop_front();
        for (reflector::Action& action : machine_.step(std::move(input))) {
          if (!co_await perform(std::move(action))) co_return;  // the FIFO was closed
        }
        publish_last_sync();  // also after steps without actions (a bookmark)
      }
      if (!timer_deadline_) {  // the common case: no timer to race (and none to cancel)
        co_await next_from_request(inputs);
        continue;
      }
      auto request = next_batch_from_request();
      auto timer = next_from_timer();
      auto next = co_await (std::move(request) || std::move(timer));
      // What the batch read before the timer fired still counts, and comes first.
      for (auto& input : batch_) inputs.push_back(std::move(input));
      batch_.clear();
      if (next.index() == 1) inputs.emplace_back(reflector::TimerFired{});
    }
  }

  ReflectorStatus status() const {
    std::lock_guard lock(status_mutex_);
    return status_;
  }
  /// Objects left out of the cache so far because their projection failed (projection.hpp).
  std::uint64_t projection_failures() const {
    std::lock_guard lock(status_mutex_);
    return projection_failures_;
  }
  /// The resourceVersion the FIFO is synced to ("" before the first list).
  std::string last_sync_resource_version() const {
    std::lock_guard lock(status_mutex_);
    return last_sync_rv_;
  }

 private:
  // Carries out one action; false when the FIFO is closed (time to stop).
  boost::asio::awaitable<bool> perform(reflector::Action action) {
    if (auto* list = std::get_if<reflector::IssueList>(&action)) {
      if (list->request.continue_token.empty()) relist_started();
      initial_events_ = false;
      pending_list_ = std::move(list->request);
      pending_watch_.reset();
      stream_.reset();
    } else if (auto* watch = std::get_if<reflector::IssueWatch>(&action)) {
      if (watch->request.send_initial_events) relist_started();
      initial_events_ = watch->request.send_initial_events;
      pending_watch_ = std::move(watch->request);
      pending_list_.reset();
      stream_.reset();
    } else if (std::holds_alternative<reflector::CloseStream>(action)) {
      stream_.reset();
    } else if (auto* replace = std::get_if<reflector::StoreReplace>(&action)) {
      std::vector<ObjectPtr> objects;
      objects.reserve(replace->objects.size());
      for (auto& object : replace->objects) objects.push_back(cast(std::move(object)));
      observer_->on_list_synced(objects.size());
      relisting_ = false;
      {
        std::lock_guard lock(status_mutex_);
        last_sync_rv_ = replace->resource_version;
      }
      co_return co_await fifo_.replace(std::move(objects), std::move(replace->resource_version));
    } else if (auto* add = std::get_if<reflector::StoreAdd>(&action)) {
      co_return co_await fifo_.add(cast(std::move(add->object)));
    } else if (auto* update = std::get_if<reflector::StoreUpdate>(&action)) {
      co_return co_await fifo_.update(cast(std::move(update->object)));
    } else if (auto* remove = std::get_if<reflector::StoreDelete>(&action)) {
      co_return co_await fifo_.remove(cast(std::move(remove->object)));
    } else if (auto* forget = std::get_if<reflector::StoreForget>(&action)) {
      co_return co_await fifo_.forget(std::move(forget->key));
    } else if (auto* wait = std::get_if<reflector::Wait>(&action)) {
      timer_deadline_ = reflector::Clock::now() + wait->delay;
    } else if (std::holds_alternative<reflector::CancelTimer>(action)) {
      timer_deadline_.reset();
    } else if (auto* report = std::get_if<reflector::ReportStatus>(&action)) {
      detail::report_status(options_.name, *report);
      observer_->on_health(report->health);
      std::lock_guard lock(status_mutex_);
      status_ = {report->health, report->message};
    }
    co_return !fifo_.is_closed();
  }

  void publish_last_sync() {
    if (machine_.last_sync_resource_version().empty()) return;
    std::lock_guard lock(status_mutex_);
    last_sync_rv_ = machine_.last_sync_resource_version();
  }

  // A (streaming or paginated) list after the first sync begins: counted once per round, however
  // many attempts and fallbacks it takes to complete.
  void relist_started() {
    if (machine_.last_sync_resource_version().empty() || relisting_) return;
    relisting_ = true;
    observer_->on_relist(relist_reason_);
  }

  static ObjectPtr cast(reflector::Object object) {
    return std::static_pointer_cast<const T>(std::move(object));
  }

  // The object to store for a decoded one: itself, or its projection; null when the projection
  // fails (then `error` says why, and the failure is counted).
  reflector::Object take(std::shared_ptr<const Wire> wire, [[maybe_unused]] std::string& error) {
    if constexpr (!kProjects) {
      return wire;
    } else {
      Projected<T> projected = project_object(options_.project, *wire);
      if (projected.object) return std::move(projected.object);
      error = std::move(projected.error);
      observer_->on_projection_failure();
      std::lock_guard lock(status_mutex_);
      ++projection_failures_;
      return nullptr;
    }
  }

  // Appends to `inputs` what the request in flight produces: a LIST page, a WATCH opening, the
  // events of the next piece of a stream, its end, or an error. Waits forever when nothing is in
  // flight.
  boost::asio::awaitable<void> next_from_request(std::deque<reflector::Input>& inputs) {
    try {
      if (pending_list_) {
        inputs.push_back(co_await list_page(*pending_list_));
        pending_list_.reset();
      } else if (pending_watch_) {
        co_await open_watch(*pending_watch_);
        pending_watch_.reset();
        inputs.emplace_back(reflector::WatchOpened{});
      } else if (stream_) {
        co_await read_stream(inputs);
      } else {
        boost::asio::steady_timer never(co_await boost::asio::this_coro::executor,
                                        boost::asio::steady_timer::time_point::max());
        co_await never.async_wait(boost::asio::use_awaitable);
      }
    } catch (const client::TransportError& e) {
      if (e.kind() == client::TransportErrorKind::kCancelled) throw;
      inputs.push_back(fail(e));
    } catch (const client::ApiError& e) {
      inputs.push_back(fail(e));
    } catch (const client::DecodeError& e) {
      inputs.push_back(fail(e));
    }
  }

  // Inputs of the request in flight into batch_, while the stream is in its initial events:
  // until an input other than an object event (the end bookmark, an error, the stream's end,
  // a list page), or kInitialEventsBatch inputs. Cancelled by the timer, it keeps what it read.
  boost::asio::awaitable<void> next_batch_from_request() {
    for (;;) {
      const std::size_t before = batch_.size();
      co_await next_from_request(batch_);
      bool more = initial_events_ && stream_.has_value();  // a read may end mid-event: none
      for (std::size_t i = before; i < batch_.size(); ++i) {
        const auto* event = std::get_if<reflector::WatchEvent>(&batch_[i]);
        if (event == nullptr || event->type == reflector::EventType::kBookmark) more = false;
      }
      if (!more || batch_.size() >= kInitialEventsBatch) co_return;
    }
  }

  boost::asio::awaitable<void> next_from_timer() {
    boost::asio::steady_timer timer(co_await boost::asio::this_coro::executor,
                                    timer_deadline_.value_or(reflector::Clock::time_point::max()));
    co_await timer.async_wait(boost::asio::use_awaitable);
    timer_deadline_.reset();
  }

  reflector::Input fail(const std::exception& error) {
    const bool watch_list = pending_watch_ && pending_watch_->send_initial_events;
    pending_list_.reset();
    pending_watch_.reset();
    stream_.reset();
    return note(detail::classify_error(error, watch_list));
  }

  // Remembers why the next relist happens, for the relists metric.
  reflector::Error note(reflector::Error error) {
    switch (error.kind) {
      case reflector::ErrorKind::kGone:
        relist_reason_ = "expired";
        break;
      case reflector::ErrorKind::kWatchListRefused:
        relist_reason_ = "watch_list_fallback";
        break;
      default:
        relist_reason_ = "error";
        break;
    }
    return error;
  }

  boost::asio::awaitable<reflector::Input> list_page(const reflector::ListRequest& request) {
    client::ListOptions options;
    options.label_selector = options_.scope.label_selector;
    options.field_selector = options_.scope.field_selector;
    options.limit = request.limit;
    options.continue_ = request.continue_token;
    options.resource_version = request.resource_version;
    options.resource_version_match = request.resource_version_match;
    observer_->on_list();
    client::BodyReader body = co_await client_.list_stream(options_.scope.resource, options);
    client::ListDecoder<Wire> decoder;
    std::vector<std::shared_ptr<const Wire>> items;
    for (auto piece = co_await body.read_some(); !piece.empty();
         piece = co_await body.read_some()) {
      decoder.feed(piece, items);
    }
    const client::ListMeta& list_meta = decoder.finish();
    observer_->on_items(items.size());
    reflector::ListPage page;
    page.objects.reserve(items.size());
    std::size_t refused = 0;
    std::string first_key;
    std::string error;
    for (auto& item : items) {
      if (auto object = take(item, error)) {
        page.objects.push_back(std::move(object));
      } else if (refused++ == 0) {
        first_key = namespace_key(meta::namespace_(*item), meta::name(*item));
      }
      item.reset();  // the decoded object is freed as soon as its projection is made
    }
    if (refused != 0) detail::report_projection_failure(options_.name, refused, first_key, error);
    page.resource_version = list_meta.resource_version;
    page.continue_token = list_meta.continue_;
    co_return page;
  }

  boost::asio::awaitable<void> open_watch(const reflector::WatchRequest& request) {
    client::WatchOptions options;
    options.label_selector = options_.scope.label_selector;
    options.field_selector = options_.scope.field_selector;
    options.resource_version = request.resource_version;
    options.resource_version_match = request.resource_version_match;
    options.allow_watch_bookmarks = request.allow_watch_bookmarks;
    if (request.send_initial_events) options.send_initial_events = true;
    if (request.timeout_seconds > 0) options.timeout_seconds = request.timeout_seconds;
    observer_->on_watch();
    stream_.emplace(co_await client_.watch(options_.scope.resource, options));
    decoder_.emplace();
  }

  boost::asio::awaitable<void> read_stream(std::deque<reflector::Input>& inputs) {
    const std::string_view piece = co_await stream_->read_some();
    if (piece.empty()) {
      decoder_->finish();  // throws DecodeError for a stream cut inside an event
      stream_.reset();
      inputs.emplace_back(reflector::StreamEnded{});
      co_return;
    }
    events_.clear();
    decoder_->feed(piece, events_);
    std::size_t objects = 0;  // reflector_items_total: every object received but bookmarks
    for (auto& event : events_) {
      using client::WatchEventType;
      if (event.type == WatchEventType::kError) {
        stream_.reset();  // the server ends the stream after an ERROR event
        inputs.push_back(note(detail::classify_status(*event.status)));
        break;
      }
      observer_->on_event(event.type);
      reflector::WatchEvent input;
      input.resource_version = meta::resource_version(*event.object);
      switch (event.type) {
        case WatchEventType::kAdded:
          input.type = reflector::EventType::kAdded;
          break;
        case WatchEventType::kModified:
          input.type = reflector::EventType::kModified;
          break;
        case WatchEventType::kDeleted:
          input.type = reflector::EventType::kDeleted;
          break;
        default: {
          input.type = reflector::EventType::kBookmark;
          input.initial_events_end =
              meta::annotation(*event.object, client::kInitialEventsEndAnnotation) == "true";
          if (input.initial_events_end) initial_events_ = false;
          inputs.emplace_back(std::move(input));
          continue;
        }
      }
      std::string error;
      input.object = take(event.object, error);
      if (!input.object) {
        input.type = reflector::EventType::kDropped;
        input.key = namespace_key(meta::namespace_(*event.object), meta::name(*event.object));
        detail::report_projection_failure(options_.name, 1, input.key, error);
      }
      event.object.reset();
      inputs.emplace_back(std::move(input));
      ++objects;
    }
    if (objects != 0) observer_->on_items(objects);
  }

  client::RestClient& client_;
  DeltaFIFO<T>& fifo_;
  Options options_;
  std::shared_ptr<ReflectorObserver> observer_;
  std::minstd_rand random_;
  std::uniform_real_distribution<double> uniform_{0.0, 1.0};
  reflector::ReflectorStateMachine machine_;

  std::optional<reflector::ListRequest> pending_list_;
  std::optional<reflector::WatchRequest> pending_watch_;
  std::optional<client::BodyReader> stream_;
  std::optional<client::WatchDecoder<Wire>> decoder_;
  std::vector<client::WatchEvent<Wire>> events_;
  static constexpr std::size_t kInitialEventsBatch = 1024;
  bool initial_events_ = false;  // the stream is a streaming list's, before its end bookmark
  std::deque<reflector::Input> batch_;
  std::optional<reflector::Clock::time_point> timer_deadline_;
  std::string_view relist_reason_ = "error";
  bool relisting_ = false;

  mutable std::mutex status_mutex_;
  ReflectorStatus status_;
  std::string last_sync_rv_;
  std::uint64_t projection_failures_ = 0;
};

}  // namespace rg::informer
