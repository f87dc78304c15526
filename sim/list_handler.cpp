// LIST: picks the state to serve (latest, exact resourceVersion or a continue token's
// snapshot), filters and paginates it, and streams the document in chunks.
#include <fmt/format.h>

#include <algorithm>

#include "sim/api_error.hpp"
#include "sim/collection_handlers.hpp"
#include "sim/list_options.hpp"
#include "sim/object_encoder.hpp"

namespace rg::sim {
namespace {

constexpr std::string_view kContinueExpired =
    "The provided continue parameter is too old to display a consistent list result. You can "
    "start a new list without the continue parameter.";

// The key relative to the list's prefix, as the token carries it ("name" within a namespace).
std::string relative_key(const StoredObject& object, std::string_view namespace_) {
  return namespace_.empty() ? object.key() : object.name;
}

}  // namespace

boost::asio::awaitable<void> serve_list(Registry& registry, const ResourceType& type,
                                        std::string_view namespace_, const HttpRequest& request,
                                        ResponseStream& stream, const Negotiation& negotiation) {
  const ListOptions options = parse_list_options(request, type, false);
  Store& store = registry.store();
  const std::string rv = options.resource_version.value_or("");
  ObjectListPtr state;
  std::string start;  // first key to serve (absolute)
  if (!options.continue_token.empty()) {
    if (!rv.empty() && rv != "0")
      throw errors::bad_request("specifying resource version is not allowed when using continue");
    auto token = decode_continue(options.continue_token);
    state = store.list_at(type, namespace_, token.resource_version, kContinueExpired);
    start = namespace_.empty() ? token.start : object_key(namespace_, token.start);
  } else if (!rv.empty() && rv != "0" &&
             (options.resource_version_match == "Exact" ||
              (options.resource_version_match.empty() && options.limit > 0))) {
    auto exact = parse_resource_version(rv);
    state =
        store.list_at(type, namespace_, exact, fmt::format("too old resource version: {}", exact));
  } else {
    if (!rv.empty()) {
      auto at_least = parse_resource_version(rv);
      auto current = store.resource_version();
      if (at_least > current) throw errors::too_large_resource_version(at_least, current);
    }
    state = store.list(type, namespace_);
  }

  const auto& items = state->items;
  auto it = items.begin();
  if (!start.empty())
    it = std::lower_bound(
        items.begin(), items.end(), start,
        [](const ObjectPtr& object, const std::string& key) { return object->key() < key; });
  const auto& selection = options.selection;
  std::vector<ObjectPtr> page;
  const std::size_t limit =
      options.limit > 0 ? static_cast<std::size_t>(options.limit) : items.size();
  for (; it != items.end() && page.size() < limit; ++it)
    if (selection.empty() || selection.matches(**it)) page.push_back(*it);
  std::string continue_token;
  std::optional<std::int64_t> remaining;
  if (options.limit > 0 && !page.empty()) {
    auto more = selection.empty() ? it : std::find_if(it, items.end(), [&](const ObjectPtr& o) {
      return selection.matches(*o);
    });
    if (more != items.end()) {
      continue_token =
          encode_continue(state->resource_version, relative_key(*page.back(), namespace_));
      if (selection.empty()) remaining = std::distance(it, items.end());
      store.keep_snapshot(type, namespace_, state);
    }
  }

  auto encoder = negotiation.table ? make_table_encoder(type, negotiation.table_api_version,
                                                        negotiation.include_object)
                                   : make_json_encoder(type);
  ChunkBuilder chunk;
  chunk.add_owned(encoder->list_header(state->resource_version, continue_token, remaining));
  Headers headers = {{"Content-Type", "application/json"}, {"Cache-Control", "no-cache, private"}};
  bool streaming = false;
  for (std::size_t i = 0; i < page.size(); ++i) {
    if (i > 0) chunk.add(",");
    encoder->list_item(page[i], chunk);
    if (chunk.size() >= kChunkBytes) {
      if (!streaming) co_await stream.begin(200, headers);
      streaming = true;
      co_await stream.chunk(chunk.parts());
      chunk.clear();
    }
  }
  chunk.add(encoder->list_footer());
  if (streaming) {
    co_await stream.chunk(chunk.parts());
    co_await stream.end();
  } else {
    // Built member by member: g++ 12 mis-destroys temporaries of aggregate initialisation
    // inside coroutines.
    HttpResponse response;
    response.headers = std::move(headers);
    response.body = chunk.joined();
    co_await stream.send(response);
  }
}

}  // namespace rg::sim
