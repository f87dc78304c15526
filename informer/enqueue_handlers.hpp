// Event handlers that turn an informer's notifications into workqueue keys, the two every
// controller writes (sample-controller's enqueueFoo and handleObject; controller-runtime's
// handler.EnqueueRequestForObject and EnqueueRequestForOwner with OnlyControllerOwner):
//
//   widgets.add_event_handler("widgets", informer::enqueue_object<Widget>(enqueue));
//   config_maps.add_event_handler(
//       "owners", informer::enqueue_controller<ConfigMap>("example.com", "Widget", enqueue));
//
// `enqueue` receives "namespace/name" keys (e.g. [queue](std::string key) { queue->add(key); }).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "informer/delta.hpp"
#include "informer/event_handler.hpp"

namespace rg::informer {

using Enqueue = std::function<void(std::string key)>;

/// Every add, update and delete of an object queues the object's own key (deletes too: the
/// reconcile finds it gone from the lister).
template <KubeObject T>
ResourceEventHandlerFuncs<T> enqueue_object(Enqueue enqueue) {
  return {.on_add = [enqueue](const auto& object, bool) { enqueue(meta_namespace_key(*object)); },
          .on_update = [enqueue](const auto&,
                                 const auto& object) { enqueue(meta_namespace_key(*object)); },
          .on_delete = [enqueue](const ObjectOrTombstone<T>& object) { enqueue(key_of(object)); }};
}

namespace detail {
// The group of an apiVersion: "example.com" of "example.com/v1", "" of "v1".
inline std::string_view api_group(std::string_view api_version) {
  const auto slash = api_version.find('/');
  return slash == std::string_view::npos ? std::string_view{} : api_version.substr(0, slash);
}
}  // namespace detail

/// Every add, update and delete of an object queues the key of its controller -- the
/// ownerReference with `controller: true` -- when that is a `kind` of API group `group` ("" for
/// the core group); the owner is in the object's namespace. An update whose controller changed
/// queues the old one as well. Objects without such a controller queue nothing.
template <KubeObject T>
ResourceEventHandlerFuncs<T> enqueue_controller(std::string group, std::string kind,
                                                Enqueue enqueue) {
  auto owner = [group = std::move(group), kind = std::move(kind),
                enqueue = std::move(enqueue)](const std::shared_ptr<const T>& object) {
    if (!object) return;  // a tombstone without a last state
    for (const auto& ref : meta::owner_references(*object)) {
      if (ref.controller && ref.kind == kind && detail::api_group(ref.api_version) == group)
        enqueue(namespace_key(meta::namespace_(*object), ref.name));
    }
  };
  return {.on_add = [owner](const auto& object, bool) { owner(object); },
          .on_update =
              [owner](const auto& old_object, const auto& new_object) {
                if (meta::controller_uid(*old_object) != meta::controller_uid(*new_object))
                  owner(old_object);
                owner(new_object);
              },
          .on_delete = [owner](const ObjectOrTombstone<T>& object) { owner(object_of(object)); }};
}

}  // namespace rg::informer
