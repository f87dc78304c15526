// KubeObject: what the informer machinery (Reflector, DeltaFIFO, Indexer, listers) can cache, and
// the metadata accessors it reads objects through (apimachinery's meta.Accessor). Two kinds of
// object qualify:
//   - typed projections: anything with an rg::client::ObjectMeta `metadata` member (every kind in
//     client/model, and custom resources declared the same way); the accessors return views and
//     references into `metadata`, so the typed path costs what direct member access costs;
//   - objects exposing the accessors as member functions (ExposesMeta): rg::client::Unstructured
//     (any group/version/resource, read from its JSON metadata; labels and ownerReferences are
//     built on each call, so index and select by them sparingly), or a user's lean type that
//     keeps only some metadata (see informer/projection.hpp).
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

/// An object exposing the metadata accessors itself, as Unstructured does: name(),
/// namespace_(), uid(), resource_version(), labels(), annotation(key), owner_references() and
/// controller_uid() (labels and owner references by value or by reference).
template <class T>
concept ExposesMeta = !HasObjectMeta<T> && requires(const T& object, std::string_view key) {
  { object.name() } -> std::convertible_to<std::string_view>;
  { object.namespace_() } -> std::convertible_to<std::string_view>;
  { object.uid() } -> std::convertible_to<std::string_view>;
  { object.resource_version() } -> std::convertible_to<std::string_view>;
  { object.labels() } -> std::convertible_to<const client::Labels&>;
  { object.annotation(key) } -> std::convertible_to<std::optional<std::string_view>>;
  { object.owner_references() } -> std::convertible_to<const std::vector<client::OwnerReference>&>;
  { object.controller_uid() } -> std::convertible_to<std::string_view>;
};

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

template <ExposesMeta T>
std::string_view name(const T& object) {
  return object.name();
}
template <ExposesMeta T>
std::string_view namespace_(const T& object) {
  return object.namespace_();
}
template <ExposesMeta T>
std::string_view uid(const T& object) {
  return object.uid();
}
template <ExposesMeta T>
std::string_view resource_version(const T& object) {
  return object.resource_version();
}
template <ExposesMeta T>
decltype(auto) labels(const T& object) {
  return object.labels();
}
template <ExposesMeta T>
std::optional<std::string_view> annotation(const T& object, std::string_view key) {
  return object.annotation(key);
}
template <ExposesMeta T>
decltype(auto) owner_references(const T& object) {
  return object.owner_references();
}
template <ExposesMeta T>
std::string_view controller_uid(const T& object) {
  return object.controller_uid();
}

}  // namespace meta

/// A Kubernetes object the informer can cache: a typed projection, Unstructured, or another type
/// exposing the accessors.
template <class T>
concept KubeObject = HasObjectMeta<T> || ExposesMeta<T>;

static_assert(ExposesMeta<client::Unstructured>);

}  // namespace rg::informer
