// LIST: picks the state to serve (latest, exact resourceVersion or a continue token's
// snapshot), filters and paginates it, and streams the document in chunks.
#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "sim/api_error.hpp"
#include "sim/collection_handlers.hpp"
#include "sim/list_options.hpp"
#include "sim/object_encoder.hpp"

namespace rg::sim {
namespace {

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
    start = namespace_.empty() ? token.start : object_key(namespace_, token.start);
    if (!token.resource_version) {
      state = store.list(type, namespace_);  // rv -1: continue at the latest state
    } else {
      state = store.list_at(type, namespace_, *token.resource_version);
      // As etcd's compaction: the rest is offered at the latest state, knowingly inconsistent.
      if (state == nullptr)
        throw errors::inconsistent_continue(encode_continue({std::nullopt, token.start}));
    }
  } else if (!rv.empty() && rv != "0" &&
             (options.resource_version_match == "Exact" ||
              (options.resource_version_match.empty() && options.limit > 0))) {
    auto exact = parse_resource_version(rv);
    state = store.list_at(type, namespace_, exact);
    if (state == nullptr) throw errors::expired(fmt::format("too old resource version: {}", exact));
  } else {
    if (!rv.empty()) {
      auto at_least = parse_resource_version(rv);
      auto current = store.resource_version();
      if (at_least > current) throw errors::too_large_resource_version(at_least, current);
    }
    state = store.list(type, namespace_);
  }

  const auto& items = state->items;
  auto it = items.from(start);
  const auto& selection = options.selection;
  std::vector<ObjectPtr> page;
  const std::size_t limit = options.limit > 0 ? static_cast<std::size_t>(options.limit)
                                              : std::numeric_limits<std::size_t>::max();
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
      if (selection.empty()) remaining = static_cast<std::int64_t>(items.count_from(it));
      store.keep_snapshot(type, *state);
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
