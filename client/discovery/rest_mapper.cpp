// RESTMapper (see rest_mapper.hpp).
#include "client/discovery/rest_mapper.hpp"

namespace rg::client {
namespace {

RESTMapping mapping_of(const APIResource& resource) {
  RESTMapping mapping;
  mapping.kind = {resource.group, resource.version, resource.kind};
  mapping.resource.group = resource.group;
  mapping.resource.version = resource.version;
  mapping.resource.resource = resource.resource;
  mapping.resource.namespaced = resource.namespaced;
  return mapping;
}

std::string describe(const GroupVersionKind& kind) {
  return "kind \"" + kind.kind + "\" in " +
         (kind.group.empty() ? std::string("the core group") : "group \"" + kind.group + "\"") +
         (kind.version.empty() ? "" : " version \"" + kind.version + "\"");
}

std::string describe(const GroupVersionResource& resource) {
  return "resource \"" + resource.resource + "\" in " +
         (resource.group.empty() ? std::string("the core group")
                                 : "group \"" + resource.group + "\"") +
         (resource.version.empty() ? "" : " version \"" + resource.version + "\"");
}

}  // namespace

RESTMapper::RESTMapper(RestClient& client, RESTMapperOptions options)
    : discovery_(client, options.use_legacy_discovery), options_(options) {}

boost::asio::awaitable<RESTMapping> RESTMapper::rest_mapping(GroupVersionKind kind) {
  auto find = [kind](const ResourceIndex& index) { return index.find_kind(kind); };
  std::string what = describe(kind);
  co_return co_await map(kind, find, std::move(what));
}

boost::asio::awaitable<RESTMapping> RESTMapper::resource_for(GroupVersionResource resource) {
  auto find = [resource](const ResourceIndex& index) { return index.find_resource(resource); };
  std::string what = describe(resource);
  co_return co_await map(resource, find, std::move(what));
}

template <class Key, class Find>
boost::asio::awaitable<RESTMapping> RESTMapper::map(Key key, Find find, std::string what) {
  auto index = cached();
  if (!index) index = co_await discover();
  if (const APIResource* found = find(*index)) co_return mapping_of(*found);
  if (claim_refresh()) {
    index = co_await discover();
    if (const APIResource* found = find(*index)) co_return mapping_of(*found);
  }
  std::string message = "no " + what + " is served";
  if (std::string why = index->failure(key.group, key.version); !why.empty()) {
    message += " (" + why + ")";
  } else {
    message += ": check the spelling, and that its CustomResourceDefinition is established";
  }
  throw NoMatchError(message);
}

boost::asio::awaitable<std::shared_ptr<const ResourceIndex>> RESTMapper::discover() {
  {
    std::lock_guard lock(mutex_);
    last_discovery_ = std::chrono::steady_clock::now();
  }
  auto index =
      std::make_shared<const ResourceIndex>(co_await discovery_.server_groups_and_resources());
  std::lock_guard lock(mutex_);
  index_ = index;
  co_return index;
}

std::shared_ptr<const ResourceIndex> RESTMapper::cached() const {
  std::lock_guard lock(mutex_);
  return index_;
}

// True when a miss may discover again now (and then no other miss may until the interval ends).
bool RESTMapper::claim_refresh() {
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard lock(mutex_);
  if (last_discovery_ && now - *last_discovery_ < options_.min_refresh_interval) return false;
  last_discovery_ = now;
  return true;
}

void RESTMapper::reset() {
  std::lock_guard lock(mutex_);
  index_.reset();
  last_discovery_.reset();
}

}  // namespace rg::client
