// The plain JSON ObjectEncoder: stored bytes are written as they are.
#include "sim/object_encoder.hpp"

#include <fmt/format.h>

#include <deque>

#include "sim/version_conversion.hpp"

namespace rg::sim {
namespace {

class JsonEncoder final : public ObjectEncoder {
 public:
  explicit JsonEncoder(const ResourceType& type) : type_(type) {}

  std::string list_header(std::uint64_t resource_version, std::string_view continue_token,
                          std::optional<std::int64_t> remaining) override {
    return fmt::format(R"({{"kind":"{}","apiVersion":"{}",{},"items":[)", type_.list_kind(),
                       type_.group_version(),
                       list_metadata(resource_version, continue_token, remaining));
  }

  void list_item(const ObjectPtr& object, ChunkBuilder& out) override {
    if (type_.custom) {
      // Items of a custom resource list are Unstructured objects: they keep kind and apiVersion.
      out.add(object->type_meta_prefix());
      out.add(std::string_view(object->body).substr(1));
    } else {
      out.add(object->body);
    }
    out.pin(object);
  }

  void watch_event(std::string_view type, const ObjectPtr& object, ChunkBuilder& out) override {
    out.add(event_prefix(type, object->type_meta_prefix()));
    out.add(std::string_view(object->body).substr(1));
    out.add("}\n");
    out.pin(object);
  }

 private:
  // `{"type":"ADDED","object":{"kind":"Pod","apiVersion":"v1",`, made once per event type and
  // kind (a watch sees three event types, and its objects' kind is the watched one): an event
  // is then three views, without an allocation of its own.
  struct EventPrefix {
    std::string event_type;
    std::string type_meta;
    std::string text;
  };
  std::string_view event_prefix(std::string_view event_type, std::string_view type_meta) {
    for (const auto& prefix : prefixes_)
      if (prefix.event_type == event_type && prefix.type_meta == type_meta) return prefix.text;
    auto& made = prefixes_.emplace_back();
    made.event_type = event_type;
    made.type_meta = type_meta;
    made.text = fmt::format(R"({{"type":"{}","object":{})", event_type, type_meta);
    return made.text;
  }

  const ResourceType& type_;
  std::deque<EventPrefix> prefixes_;  // a deque: the views handed out stay valid as it grows
};

}  // namespace

std::string list_metadata(std::uint64_t resource_version, std::string_view continue_token,
                          std::optional<std::int64_t> remaining) {
  std::string out = fmt::format(R"("metadata":{{"resourceVersion":"{}")", resource_version);
  if (!continue_token.empty()) out += fmt::format(R"(,"continue":"{}")", continue_token);
  if (remaining) out += fmt::format(R"(,"remainingItemCount":{})", *remaining);
  out += "}";
  return out;
}

std::unique_ptr<ObjectEncoder> make_json_encoder(const ResourceType& type) {
  auto encoder = std::make_unique<JsonEncoder>(type);
  if (type.storage != nullptr) return converting_encoder(type, std::move(encoder));
  return encoder;
}

}  // namespace rg::sim
