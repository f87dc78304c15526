// The watch stream decoder: a JsonReader reads one event document after another into the
// WatchEnvelope, which routes "object" straight into the typed sink when "type" came first (the
// order the API server writes), and through a DOM otherwise.
#include "client/watch/watch_decoder.hpp"

#include <boost/json/value.hpp>

#include <array>
#include <utility>

#include "client/model/decode_error.hpp"
#include "client/model/dom_sink.hpp"
#include "client/model/json_reader.hpp"
#include "client/watch/envelope_sink.hpp"

namespace rg::client {

namespace {

constexpr std::array<std::pair<std::string_view, WatchEventType>, 5> kEventTypes{{
    {"ADDED", WatchEventType::kAdded},
    {"MODIFIED", WatchEventType::kModified},
    {"DELETED", WatchEventType::kDeleted},
    {"BOOKMARK", WatchEventType::kBookmark},
    {"ERROR", WatchEventType::kError},
}};

}  // namespace

std::string_view to_string(WatchEventType type) {
  for (const auto& [name, value] : kEventTypes) {
    if (value == type) return name;
  }
  return "UNKNOWN";
}

std::optional<WatchEventType> parse_watch_event_type(std::string_view name) {
  for (const auto& [wire, value] : kEventTypes) {
    if (wire == name) return value;
  }
  return std::nullopt;
}

namespace detail {
namespace {

// Accepts one string value (the event type).
class StringSink final : public ValueSink {
 public:
  void start(void* target) override { target_ = static_cast<std::string*>(target); }
  bool object_begin() override { return wrong(JsonType::kObject); }
  bool object_end(std::size_t) override { return true; }
  bool array_begin() override { return wrong(JsonType::kArray); }
  bool array_end(std::size_t) override { return true; }
  bool key(std::string_view) override { return true; }
  bool string(std::string_view value) override {
    target_->assign(value);
    return true;
  }
  bool int64(std::int64_t) override { return wrong(JsonType::kNumber); }
  bool uint64(std::uint64_t) override { return wrong(JsonType::kNumber); }
  bool float64(double) override { return wrong(JsonType::kNumber); }
  bool boolean(bool) override { return wrong(JsonType::kBoolean); }
  bool null() override { return wrong(JsonType::kNull); }
  const SinkError& error() const override { return error_; }

 private:
  bool wrong(JsonType got) {
    error_ = {{}, "expected string, got " + std::string(name_of(got))};
    return false;
  }
  std::string* target_ = nullptr;
  SinkError error_;
};

class WatchEnvelope final : public EnvelopeSink {
 public:
  explicit WatchEnvelope(ObjectCodec codec)
      : codec_(codec), object_sink_(codec.make_sink()), dom_sink_(std::make_unique<DomSink>()) {}

  void start(void*) override {
    reset_routing();
    in_event_ = false;
    routing_ = Routing::kNone;
    type_.reset();
    has_object_ = false;
    object_in_dom_ = false;
    event_ = {};
  }

  /// The event decoded by the last completed document.
  RawWatchEvent take() { return std::move(event_); }

 private:
  enum class Routing { kNone, kType, kObject };

  bool own_value(JsonType type) override {
    if (!in_event_ && type == JsonType::kObject) {
      in_event_ = true;
      return true;
    }
    return fail({}, "expected a watch event object, got " + std::string(name_of(type)));
  }

  bool own_end(JsonType) override { return event_done(); }

  bool own_key(std::string_view key) override {
    if (key == "type") {
      routing_ = Routing::kType;
      type_name_.clear();
      type_sink_.start(&type_name_);
      route(type_sink_, "type");
    } else if (key == "object") {
      routing_ = Routing::kObject;
      route_object();
    } else {
      routing_ = Routing::kNone;
      skip_value();
    }
    return true;
  }

  bool routed_value_done() override {
    if (routing_ == Routing::kType) {
      type_ = parse_watch_event_type(type_name_);
      if (!type_) {
        return fail("type", "unknown watch event type \"" + type_name_ +
                                "\" (expected ADDED, MODIFIED, DELETED, BOOKMARK or ERROR)");
      }
    } else if (routing_ == Routing::kObject) {
      has_object_ = true;
    }
    routing_ = Routing::kNone;
    return true;
  }

  // The object goes straight into T when the type is known and is not ERROR; an ERROR's Status
  // and an object that comes before its type go through a DOM value.
  void route_object() {
    if (type_ && *type_ != WatchEventType::kError) {
      object_in_dom_ = false;
      event_.object = codec_.create();
      object_sink_->start(event_.object.get());
      route(*object_sink_, "object");
    } else {
      object_in_dom_ = true;
      dom_ = nullptr;
      dom_sink_->start(&dom_);
      route(*dom_sink_, "object");
    }
  }

  bool event_done() {
    if (!type_) return fail({}, "watch event without \"type\"");
    if (!has_object_) return fail({}, "watch event without \"object\"");
    event_.type = *type_;
    if (*type_ == WatchEventType::kError) return take_status();
    if (object_in_dom_) {
      event_.object = codec_.create();
      object_sink_->start(event_.object.get());
      if (!replay(dom_, *object_sink_)) {
        const SinkError& inner = object_sink_->error();
        return fail(join_path("object", inner.path), inner.message);
      }
    }
    return true;
  }

  bool take_status() {
    // The API server always writes kind "Status"; older or hand-written servers may omit it.
    if (auto* object = dom_.if_object(); object != nullptr && !object->contains("kind")) {
      (*object)["kind"] = "Status";
    }
    auto status = status_from_json(dom_);
    if (!status) return fail("object", "ERROR event without a valid metav1.Status object");
    event_.status = std::make_shared<const Status>(*std::move(status));
    return true;
  }

  ObjectCodec codec_;
  std::unique_ptr<ValueSink> object_sink_;
  std::unique_ptr<ValueSink> dom_sink_;
  StringSink type_sink_;
  std::string type_name_;
  boost::json::value dom_;
  bool in_event_ = false;
  Routing routing_ = Routing::kNone;
  std::optional<WatchEventType> type_;
  bool has_object_ = false;
  bool object_in_dom_ = false;
  RawWatchEvent event_{};
};

}  // namespace

struct WatchStreamDecoder::Impl {
  Impl(ObjectCodec codec, WatchDecoderOptions options)
      : envelope(codec), reader(envelope, options.max_event_bytes) {
    envelope.start(nullptr);
  }

  [[noreturn]] void fail(const std::string& message) {
    failure = "watch event " + std::to_string(events + 1) + ": " + message;
    throw DecodeError(failure);
  }

  WatchEnvelope envelope;
  JsonReader reader;
  std::uint64_t events = 0;
  std::string failure;
};

WatchStreamDecoder::WatchStreamDecoder(ObjectCodec codec, WatchDecoderOptions options)
    : impl_(std::make_unique<Impl>(codec, options)) {}

WatchStreamDecoder::~WatchStreamDecoder() = default;

void WatchStreamDecoder::feed(std::string_view chunk, std::vector<RawWatchEvent>& out) {
  Impl& d = *impl_;
  if (!d.failure.empty()) throw DecodeError(d.failure);
  try {
    while (d.reader.write(chunk)) {
      out.push_back(d.envelope.take());
      ++d.events;
      d.envelope.start(nullptr);
    }
  } catch (const DecodeError& error) {
    d.fail(error.what());
  }
}

void WatchStreamDecoder::finish() {
  Impl& d = *impl_;
  if (!d.failure.empty()) throw DecodeError(d.failure);
  if (d.reader.in_document()) {
    d.fail("the stream ended inside the event, after " + std::to_string(d.reader.document_bytes()) +
           " bytes of it (truncated)");
  }
}

std::uint64_t WatchStreamDecoder::events() const noexcept { return impl_->events; }

}  // namespace detail
}  // namespace rg::client
