// Adapters from the operator's writers to the RestClient (see api_adapters.hpp).
#include "operator/api_adapters.hpp"

#include <boost/json/serialize.hpp>

#include "client/model/codec.hpp"
#include "client/rest/resource_version.hpp"
#include "operator/annotations.hpp"

namespace rg::op {

namespace json = boost::json;

boost::asio::awaitable<std::string> RestDeploymentWriter::patch_annotations(
    const std::string& namespace_, const std::string& name, const std::string& resource_version,
    const std::vector<std::pair<std::string, std::optional<std::string>>>& annotations) {
  json::object values;
  for (const auto& [key, value] : annotations) {
    if (value) {
      values[key] = *value;
    } else {
      values[key] = nullptr;
    }
  }
  const json::value patch = {
      {"metadata", {{"resourceVersion", resource_version}, {"annotations", values}}}};
  const std::string body = json::serialize(patch);
  const client::ResourceRef deployments = client::resources::deployments().in(namespace_);
  client::PatchOptions options;
  options.field_manager = std::string(kFieldManager);
  const std::string updated =
      co_await client_.patch_text(deployments, name, client::PatchType::kMerge, body, options);
  co_return client::find_resource_version(updated).value_or(resource_version);
}

boost::asio::awaitable<std::string> RestDeploymentWriter::scale(const std::string& namespace_,
                                                                const std::string& name,
                                                                const std::string& resource_version,
                                                                std::int32_t replicas) {
  const json::value patch = {{"metadata", {{"resourceVersion", resource_version}}},
                             {"spec", {{"replicas", replicas}}}};
  const std::string body = json::serialize(patch);
  const client::ResourceRef scale = client::resources::deployments().in(namespace_).sub("scale");
  client::PatchOptions options;
  options.field_manager = std::string(kFieldManager);
  const std::string updated =
      co_await client_.patch_text(scale, name, client::PatchType::kMerge, body, options);
  // The Scale's resourceVersion is the Deployment's.
  co_return client::find_resource_version(updated).value_or(resource_version);
}

}  // namespace rg::op
