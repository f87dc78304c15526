// Test-defined Kubernetes-like objects for the informer tests, and builders for them.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "client/labels/labels.hpp"
#include "client/model/object_meta.hpp"

namespace rg::informer::test {

/// A minimal pod: metadata plus the one spec field the tests index on.
struct TestPod {
  client::ObjectMeta metadata;
  std::string node_name;
};

using PodPtr = std::shared_ptr<const TestPod>;

inline PodPtr make_pod(std::string_view namespace_name, std::string_view name,
                       std::string_view resource_version, std::string node_name = "",
                       client::Labels labels = {}) {
  auto pod = std::make_shared<TestPod>();
  pod->metadata.namespace_ = namespace_name;
  pod->metadata.name = name;
  pod->metadata.resource_version = resource_version;
  pod->metadata.labels = std::move(labels);
  pod->node_name = std::move(node_name);
  return pod;
}

/// A cluster-scoped object type.
struct TestNode {
  client::ObjectMeta metadata;
};

}  // namespace rg::informer::test
