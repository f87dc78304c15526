// Projections: a dynamic informer decodes each object as Unstructured (any resource, no schema
// needed) and caches the user's own, smaller type instead, made by a user function from the
// decoded object -- so a program watching a big custom resource keeps only the fields it reads.
// client-go's SetTransform, except that the cached type changes. The projection runs in the
// Reflector, before the DeltaFIFO: the decoded Unstructured is freed as soon as the T is made,
// and the DeltaFIFO, Indexer, listers and handlers hold one allocation per object (the T with its
// shared_ptr control block, plus whatever its own members allocate).
//
// The target type is any KubeObject (kube_object.hpp), typically a struct with an
// rg::client::ObjectMeta `metadata` member. The projection must copy metadata.name, namespace
// and resourceVersion (the cache's key and its change detection); it may throw to refuse an
// object. A refused object -- an exception, or a T with another name, namespace or
// resourceVersion -- is never cached: it is logged, counted (projection_failures(), and
// informer_projection_failures_total with InformerMetrics) and
//   - in a LIST (or a streaming list's initial events) left out, so the relist's Replace
//     deletes a version cached before (a DeletedFinalStateUnknown tombstone);
//   - in a watch event (ADDED, MODIFIED, DELETED) dropped, and its key forgotten: a version
//     cached before leaves the cache with a DeletedFinalStateUnknown tombstone, and the
//     resourceVersion advances as for a bookmark (the event is not asked for again).
// So the cache always mirrors the objects whose projection succeeds, never a stale version.
//
//   struct WidgetSummary { client::ObjectMeta metadata; std::int64_t replicas = 0; };
//   WidgetSummary summarize(const client::Unstructured& u) { ... read u.object() ... }
//   auto& widgets = factory.for_resource<WidgetSummary>(mapping.resource, summarize);
#pragma once

#include <exception>
#include <functional>
#include <memory>
#include <string>

#include "informer/kube_object.hpp"

namespace rg::informer {

/// Makes the cached T from a decoded Wire object (Unstructured for dynamic informers). Throws
/// (any std::exception) to refuse the object.
template <KubeObject T, KubeObject Wire>
using ProjectFunc = std::function<T(const Wire&)>;

/// One object's projection: the object to cache, or (null and) why it was refused.
template <KubeObject T>
struct Projected {
  std::shared_ptr<const T> object;
  std::string error;
};

/// Runs `project` on `wire`, catching its exceptions, and checks that the result keeps the
/// object's name, namespace and resourceVersion.
template <KubeObject T, KubeObject Wire>
Projected<T> project_object(const ProjectFunc<T, Wire>& project, const Wire& wire) {
  std::shared_ptr<const T> object;
  try {
    object = std::make_shared<const T>(project(wire));
  } catch (const std::exception& e) {
    return {nullptr, e.what()};
  }
  if (meta::name(*object) != meta::name(wire) ||
      meta::namespace_(*object) != meta::namespace_(wire) ||
      meta::resource_version(*object) != meta::resource_version(wire)) {
    return {nullptr,
            "the projection did not copy metadata.name, namespace and resourceVersion (got \"" +
                std::string(meta::namespace_(*object)) + "/" + std::string(meta::name(*object)) +
                "\" at \"" + std::string(meta::resource_version(*object)) + "\")"};
  }
  return {std::move(object), {}};
}

}  // namespace rg::informer
