// The LIST decoder: a ListEnvelope reads the list object, routes "metadata" into ListMeta and
// each element of "items" into a fresh object of the codec's type.
#include "client/watch/list_decoder.hpp"

#include "client/model/decode_error.hpp"
#include "client/model/dom_sink.hpp"
#include "client/model/json_reader.hpp"
#include "client/model/struct_sink.hpp"
#include "client/watch/envelope_sink.hpp"

namespace rg::client::detail {
namespace {

class ListEnvelope final : public EnvelopeSink {
 public:
  explicit ListEnvelope(ObjectCodec codec)
      : codec_(codec),
        item_sink_(codec.make_sink()),
        meta_sink_(make_struct_sink(schema_of(Tag<ListMeta>{}))),
        type_sink_(codec.fill_type_meta ? std::make_unique<DomSink>() : nullptr) {}

  void start(void*) override {
    reset_routing();
    depth_ = 0;
    routing_item_ = false;
    count_ = 0;
    metadata_ = {};
    item_ = nullptr;
    api_version_ = nullptr;
    kind_ = nullptr;
  }

  void set_item_handler(const std::function<void(std::shared_ptr<void>)>* on_item) {
    on_item_ = on_item;
  }
  const ListMeta& metadata() const { return metadata_; }
  std::size_t count() const { return count_; }

 private:
  bool own_value(JsonType type) override {
    if (depth_ == 0) {
      if (type != JsonType::kObject) {
        return fail({}, "expected a list object, got " + std::string(name_of(type)));
      }
      depth_ = 1;
      return true;
    }
    if (depth_ == 1) {  // the value of "items"
      if (type == JsonType::kArray) {
        depth_ = 2;
        return true;
      }
      if (type == JsonType::kNull) return true;
      return fail("items", "expected array, got " + std::string(name_of(type)));
    }
    item_ = codec_.create();
    item_sink_->start(item_.get());
    routing_item_ = true;
    route(*item_sink_, "items", count_);
    return true;
  }

  bool own_end(JsonType) override {
    --depth_;
    return true;
  }

  bool own_key(std::string_view key) override {
    if (key == "metadata") {
      meta_sink_->start(&metadata_);
      route(*meta_sink_, "metadata");
    } else if (type_sink_ && key == "apiVersion") {  // read for fill_type_meta
      type_sink_->start(&api_version_);
      route(*type_sink_, "apiVersion");
    } else if (type_sink_ && key == "kind") {
      type_sink_->start(&kind_);
      route(*type_sink_, "kind");
    } else if (key != "items") {  // the items array is read by own_value
      skip_value();
    }
    return true;
  }

  bool routed_value_done() override {
    if (routing_item_) {
      routing_item_ = false;
      ++count_;
      if (codec_.fill_type_meta) fill_type_meta();
      (*on_item_)(std::move(item_));
    }
    return true;
  }

  // The list's apiVersion and kind (when they come before the items, as API servers write
  // them) into an item that lacks them.
  void fill_type_meta() {
    const auto* api_version = api_version_.if_string();
    const auto* kind = kind_.if_string();
    codec_.fill_type_meta(item_.get(), api_version ? std::string_view(*api_version) : "",
                          kind ? std::string_view(*kind) : "");
  }

  ObjectCodec codec_;
  std::unique_ptr<ValueSink> item_sink_;
  std::unique_ptr<ValueSink> meta_sink_;
  std::unique_ptr<ValueSink> type_sink_;  ///< only for a codec with fill_type_meta
  boost::json::value api_version_;
  boost::json::value kind_;
  const std::function<void(std::shared_ptr<void>)>* on_item_ = nullptr;
  int depth_ = 0;  // 1 inside the list object, 2 inside "items"
  bool routing_item_ = false;
  std::size_t count_ = 0;
  ListMeta metadata_;
  std::shared_ptr<void> item_;
};

}  // namespace

struct ListStreamDecoder::Impl {
  explicit Impl(ObjectCodec codec) : envelope(codec), reader(envelope) { envelope.start(nullptr); }

  [[noreturn]] void fail(const std::string& message) {
    failure = "decoding a list: " + message;
    throw DecodeError(failure);
  }

  ListEnvelope envelope;
  JsonReader reader;
  bool complete = false;
  std::string failure;
};

ListStreamDecoder::ListStreamDecoder(ObjectCodec codec) : impl_(std::make_unique<Impl>(codec)) {}

ListStreamDecoder::~ListStreamDecoder() = default;

void ListStreamDecoder::feed(std::string_view chunk,
                             const std::function<void(std::shared_ptr<void>)>& on_item) {
  Impl& d = *impl_;
  if (!d.failure.empty()) throw DecodeError(d.failure);
  d.envelope.set_item_handler(&on_item);
  try {
    if (!d.complete) d.complete = d.reader.write(chunk);  // leaves in `chunk` what follows
    // What follows the list is not parsed: a second object's items are not the list's.
    if (d.complete && !is_json_whitespace(chunk)) {
      d.fail(
          "unexpected data after the list object (a LIST body is one JSON object; only "
          "whitespace may follow it)");
    }
  } catch (const DecodeError& error) {
    if (!d.failure.empty()) throw;
    d.fail(error.what());
  }
}

const ListMeta& ListStreamDecoder::finish() {
  Impl& d = *impl_;
  if (!d.failure.empty()) throw DecodeError(d.failure);
  if (!d.complete) {
    d.fail(d.reader.in_document()
               ? "the body ended inside the list, after " +
                     std::to_string(d.reader.document_bytes()) + " bytes (truncated)"
               : std::string("the body is empty"));
  }
  return d.envelope.metadata();
}

const ListMeta& ListStreamDecoder::metadata() const noexcept { return impl_->envelope.metadata(); }

std::size_t ListStreamDecoder::items() const noexcept { return impl_->envelope.count(); }

}  // namespace rg::client::detail
