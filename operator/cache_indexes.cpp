// The operator's cache indexes (see cache_indexes.hpp).
#include "operator/cache_indexes.hpp"

#include "informer/index_funcs.hpp"
#include "operator/cluster_facts.hpp"

namespace rg::op {

std::string label_index_value(std::string_view ns, std::string_view key, std::string_view value) {
  std::string out;
  out.reserve(ns.size() + key.size() + value.size() + 2);
  out.append(ns).append("/").append(key).append("=").append(value);
  return out;
}

informer::Indexers<client::Pod> pod_indexers() {
  auto indexers = informer::default_indexers<client::Pod>();
  indexers.emplace(kPodsByNodeIndex, informer::index_by<client::Pod>(
                                         [](const client::Pod& p) { return p.spec.node_name; }));
  indexers.emplace(kPodsByLabelIndex, [](const client::Pod& p) {
    std::vector<std::string> values;
    values.reserve(p.metadata.labels.size());
    for (const auto& [key, value] : p.metadata.labels)
      values.push_back(label_index_value(p.metadata.namespace_, key, value));
    return values;
  });
  return indexers;
}

informer::Indexers<client::Node> node_indexers() {
  informer::Indexers<client::Node> indexers;
  indexers.emplace(kNodesByReadyIndex,
                   informer::index_by<client::Node>([](const client::Node& node) {
                     return std::string_view(node_ready(node) ? "true" : "false");
                   }));
  return indexers;
}

informer::Indexers<client::Deployment> deployment_indexers() {
  auto indexers = informer::default_indexers<client::Deployment>();
  indexers.emplace(kDeploymentsBySelectorIndex, [](const client::Deployment& d) {
    const auto& match = d.spec.selector.match_labels;
    const std::string_view ns = d.metadata.namespace_;
    return std::vector<std::string>{
        match.empty() ? std::string(ns) + "/"
                      : label_index_value(ns, match.begin()->first, match.begin()->second)};
  });
  return indexers;
}

}  // namespace rg::op
