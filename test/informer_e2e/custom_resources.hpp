// Custom resources for the informer e2e tests: a CustomResourceDefinition of group example.com
// (one served version v1, any fields kept), a writer of its objects through the API, and the
// dynamic factories' options.
#pragma once

#include <boost/json/object.hpp>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "client/model/unstructured.hpp"
#include "client/rest/resource.hpp"
#include "informer/shared_informer_factory.hpp"
#include "test/informer_e2e/sim_fixture.hpp"

namespace rg::informer::e2e {

namespace json = boost::json;

inline const client::ResourceRef kCrds{
    "apiextensions.k8s.io", "v1", "customresourcedefinitions", false, "", ""};
inline const client::ResourceRef kWidgets{"example.com", "v1", "widgets", true, "", ""};
inline const client::ResourceRef kGadgets{"example.com", "v1", "gadgets", false, "", ""};

inline json::object definition(const std::string& singular, const std::string& kind,
                               bool namespaced) {
  const std::string plural = singular + "s";
  json::object schema{{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}};
  json::object version{{"name", "v1"},
                       {"served", true},
                       {"storage", true},
                       {"schema", json::object{{"openAPIV3Schema", schema}}}};
  return json::object{{"apiVersion", "apiextensions.k8s.io/v1"},
                      {"kind", "CustomResourceDefinition"},
                      {"metadata", json::object{{"name", plural + ".example.com"}}},
                      {"spec", json::object{{"group", "example.com"},
                                            {"scope", namespaced ? "Namespaced" : "Cluster"},
                                            {"names", json::object{{"plural", plural},
                                                                   {"singular", singular},
                                                                   {"kind", kind},
                                                                   {"listKind", kind + "List"}}},
                                            {"versions", json::array{version}}}}};
}

namespace detail {
// The writes as coroutines owning their arguments, with named options: g++ 12 destroys a
// defaulted argument's temporary inside a co_await expression twice.
inline boost::asio::awaitable<json::value> create(client::RestClient& client,
                                                  client::ResourceRef resource,
                                                  json::value object) {
  const client::CreateOptions options;
  co_return co_await client.create(resource, object, options);
}
inline boost::asio::awaitable<json::value> merge_patch(client::RestClient& client,
                                                       client::ResourceRef resource,
                                                       std::string name, std::string patch) {
  const client::PatchOptions options;
  co_return co_await client.patch(resource, name, client::PatchType::kMerge, std::move(patch),
                                  options);
}
inline boost::asio::awaitable<json::value> remove(client::RestClient& client,
                                                  client::ResourceRef resource, std::string name) {
  const client::DeleteOptions options;
  co_return co_await client.remove(resource, name, options);
}
}  // namespace detail

// Writes through the API, as any client of the custom resource would.
class Writer {
 public:
  explicit Writer(Fixture& f) : f_(f) {}

  void create_definition(const std::string& singular, const std::string& kind, bool namespaced) {
    f_.await(detail::create(f_.client, kCrds, definition(singular, kind, namespaced)));
  }
  void create(const client::ResourceRef& resource, const std::string& kind, const std::string& name,
              int size) {
    json::object metadata{{"name", name}};
    if (resource.namespaced) metadata["namespace"] = resource.namespace_;
    json::value object = json::object{{"apiVersion", "example.com/v1"},
                                      {"kind", kind},
                                      {"metadata", std::move(metadata)},
                                      {"spec", json::object{{"size", size}}}};
    f_.await(detail::create(f_.client, resource, std::move(object)));
  }
  void resize(const client::ResourceRef& resource, const std::string& name, int size) {
    f_.await(detail::merge_patch(f_.client, resource, name,
                                 R"({"spec":{"size":)" + std::to_string(size) + "}}"));
  }
  void remove(const client::ResourceRef& resource, const std::string& name) {
    f_.await(detail::remove(f_.client, resource, name));
  }

 private:
  Fixture& f_;
};

/// The Widget definition and `count` widgets "w-<i>" of size i, alternately in "default" and
/// "kube-system".
inline void seed_widgets(Writer& writer, int count) {
  writer.create_definition("widget", "Widget", true);
  for (int i = 0; i < count; ++i) {
    writer.create(kWidgets.in(i % 2 == 0 ? "default" : "kube-system"), "Widget",
                  "w-" + std::to_string(i), i);
  }
}

/// A dynamic factory's options for the tests: fast retries, LIST pages of 10, `observer` for
/// every informer.
inline SharedInformerFactoryOptions dynamic_factory_options(
    bool watch_list, std::shared_ptr<CountingObserver> observer) {
  SharedInformerFactoryOptions options;
  options.reflector = fast_reflector();
  options.reflector.use_watch_list = watch_list;
  options.reflector.page_size = 10;
  options.observer = [observer](const std::string&) { return observer; };
  return options;
}

inline std::int64_t size_of(const client::Unstructured& object) {
  const auto* spec = object.object().if_contains("spec");
  if (spec == nullptr || !spec->is_object()) return -1;
  const auto* size = spec->get_object().if_contains("size");
  return size != nullptr && size->is_int64() ? size->get_int64() : -1;
}

/// What a handler of a dynamic informer caching T heard; `last_size` is size_of (found by
/// argument-dependent lookup) of the last updated object.
template <class T>
struct Heard {
  std::atomic<int> adds{0}, updates{0}, deletes{0};
  std::atomic<std::int64_t> last_size{-1};
  ResourceEventHandlerFuncs<T> handler() {
    return {.on_add = [this](const auto&, bool) { ++adds; },
            .on_update =
                [this](const auto&, const auto& object) {
                  ++updates;
                  last_size = size_of(*object);
                },
            .on_delete = [this](const auto&) { ++deletes; }};
  }
};

}  // namespace rg::informer::e2e
