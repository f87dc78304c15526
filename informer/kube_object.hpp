// KubeObject: what the informer machinery (Reflector, DeltaFIFO, Indexer, listers) can cache, and
// the metadata accessors it reads objects through (apimachinery's meta.Accessor). Two kinds of
// object qualify:
//   - typed projections: anything with an rg::client::ObjectMeta `metadata` member (every kind in
//     client/model, and custom resources declared the same way); the accessors return views and
//     references into `metadata`, so the typed path costs what direct member access costs;
//   - rg::client::Unstructured: any group/version/resource, read from its JSON metadata (labels
//     and ownerReferences are built on each call, so index and select by them sparingly).
//
//   std::string_view rv = meta::resource_version(*object);
//   if (auto owner = meta::controller_uid(*object); !owner.empty()) ...
#pragma once

#include <concepts>
#include <optional>
#include <string_view>
#include <type_traits>
#include <vector>

#include "client/labels/labels.hpp"
#include "client/model/object_meta.hpp"
#include "client/model/unstructured.hpp"

namespace rg::informer {

/// A typed projection: it carries a `metadata` member of type rg::client::ObjectMeta.
template <class T>
concept HasObjectMeta =
    std::same_as<std::remove_cvref_t<decltype(std::declval<const T&>().metadata)>,
                 client::ObjectMeta>;

namespace meta {

template <HasObjectMeta T>
std::string_view name(const T& object) {
  return object.metadata.name;
}
template <HasObjectMeta T>
std::string_view namespace_(const T& object) {
  return object.metadata.namespace_;
}
template <HasObjectMeta T>
std::string_view uid(const T& object) {
  return object.metadata.uid;
}
template <HasObjectMeta T>
std::string_view resource_version(const T& object) {
  return object.metadata.resource_version;
}
template <HasObjectMeta T>
const client::Labels& labels(const T& object) {
  return object.metadata.labels;
}
template <HasObjectMeta T>
std::optional<std::string_view> annotation(const T& object, std::string_view key) {
  const auto& annotations = object.metadata.annotations;
  const auto it = annotations.find(key);
  if (it == annotations.end()) return std::nullopt;
  return std::string_view(it->second);
}
template <HasObjectMeta T>
const std::vector<client::OwnerReference>& owner_references(const T& object) {
  return object.metadata.owner_references;
}
template <HasObjectMeta T>
std::string_view controller_uid(const T& object) {
  for (const auto& owner : object.metadata.owner_references) {
    if (owner.controller) return owner.uid;
  }
  return {};
}

inline std::string_view name(const client::Unstructured& object) { return object.name(); }
inline std::string_view namespace_(const client::Unstructured& object) {
  return object.namespace_();
}
inline std::string_view uid(const client::Unstructured& object) { return object.uid(); }
inline std::string_view resource_version(const client::Unstructured& object) {
  return object.resource_version();
}
inline client::Labels labels(const client::Unstructured& object) { return object.labels(); }
inline std::optional<std::string_view> annotation(const client::Unstructured& object,
                                                  std::string_view key) {
  return object.annotation(key);
}
inline std::vector<client::OwnerReference> owner_references(const client::Unstructured& object) {
  return object.owner_references();
}
inline std::string_view controller_uid(const client::Unstructured& object) {
  return object.controller_uid();
}

}  // namespace meta

/// A Kubernetes object the informer can cache: a typed projection or Unstructured.
template <class T>
concept KubeObject = HasObjectMeta<T> || std::same_as<T, client::Unstructured>;

}  // namespace rg::informer
