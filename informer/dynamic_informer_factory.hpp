// DynamicSharedInformerFactory: informers over Unstructured for any group/version/resource --
// custom resources included -- without a C++ type for them (client-go's dynamicinformer). It is
// the SharedInformerFactory with objects kept as Unstructured: the same Reflector (paginated
// LIST, streaming list, bookmarks, relist on 410), DeltaFIFO, Indexer and listers, one shared
// informer per (resource, namespace, label selector, field selector), however often it is asked
// for. The namespace, selectors and resync period of a factory's informers are its options, as
// client-go's NewFilteredDynamicSharedInformerFactory(client, resync, namespace, tweak) takes them.
//
//   DynamicSharedInformerFactory factory(client, options);  // options.namespace_ = "shop"
//   auto mapping = co_await mapper.rest_mapping({"example.com", "v1", "Widget"});  // scope
//   DynamicInformer& widgets = factory.for_resource(mapping.resource);
//   widgets.add_event_handler("print", {.on_add = [](const auto& w, bool) { ... }});
//   factory.start(executor);
//   co_await factory.wait_for_cache_sync(30s);
//   for (const auto& w : widgets.lister().namespace_("shop").list()) meta::name(*w) ...
//
// for_resource<T>(resource, project) caches the user's own type T instead, made from each
// decoded Unstructured by `project` (projection.hpp): a big custom resource costs only the
// fields the program keeps. One informer per target type as well.
//
//   auto& summaries = factory.for_resource<WidgetSummary>(mapping.resource, summarize);
//   summaries.lister().list() -> std::vector<std::shared_ptr<const WidgetSummary>>
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "client/model/unstructured.hpp"
#include "informer/projection.hpp"
#include "informer/shared_informer_factory.hpp"

namespace rg::informer {

using DynamicInformer = SharedIndexInformer<client::Unstructured>;
using DynamicLister = Lister<client::Unstructured>;
/// A dynamic informer caching T, projected from each decoded Unstructured.
template <KubeObject T>
using ProjectingInformer = SharedIndexInformer<T, client::Unstructured>;

/// A transform for dynamic informers that stores objects without metadata.managedFields
/// (often the largest part of an object, and read by no controller): set it in
/// for_resource's `per_informer` (options.transform = drop_managed_fields).
std::shared_ptr<const client::Unstructured> drop_managed_fields(
    std::shared_ptr<const client::Unstructured> object);

class DynamicSharedInformerFactory : private SharedInformerFactory {
 public:
  using SharedInformerFactory::SharedInformerFactory;

  /// The shared informer for `resource` (group, version, plural and scope, e.g. from a
  /// RESTMapper; a namespaced one without a namespace gets the factory's). `name` labels its
  /// metrics and logs (default: "widgets.example.com", or the plural for the core group);
  /// `per_informer` may narrow the selectors and add indexers or a transform on creation.
  DynamicInformer& for_resource(
      client::ResourceRef resource, std::string name = {},
      const std::function<void(DynamicInformer::Options&)>& per_informer = {}) {
    if (name.empty()) name = resource.group_resource();
    return informer_for<client::Unstructured>(std::move(resource), std::move(name), per_informer);
  }

  /// The shared informer for `resource` caching T, made by `project` from each decoded object
  /// (see projection.hpp: what it must copy, and what happens to an object it refuses). One
  /// per (T, resource, namespace, selectors): the `project` of the first call is the one used.
  /// `per_informer` may add indexers over T or narrow the selectors.
  template <KubeObject T>
  ProjectingInformer<T>& for_resource(
      client::ResourceRef resource, ProjectFunc<T, client::Unstructured> project,
      std::string name = {},
      const std::function<void(typename ProjectingInformer<T>::Options&)>& per_informer = {}) {
    if (name.empty()) name = resource.group_resource();
    auto configure = [&](typename ProjectingInformer<T>::Options& options) {
      options.project = std::move(project);
      if (per_informer) per_informer(options);
    };
    return informer_for<T, client::Unstructured>(std::move(resource), std::move(name), configure);
  }

  using SharedInformerFactory::shutdown;
  using SharedInformerFactory::start;
  using SharedInformerFactory::sync_state;
  using SharedInformerFactory::wait_for_cache_sync;
};

}  // namespace rg::informer
