// Adapters from the operator's writers to the RestClient (see api_adapters.hpp).
#include "operator/api_adapters.hpp"

#include <boost/json/serialize.hpp>

#include "client/model/codec.hpp"
#include "client/model/lease.hpp"
#include "client/rest/api_error.hpp"
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

boost::asio::awaitable<void> RestEventSink::create(const client::Event& event) {
  const json::value object = client::to_json(event);
  const client::ResourceRef events = client::resources::events().in(event.metadata.namespace_);
  const client::CreateOptions
      options;  // named: g++ 12 double-destroys defaulted coroutine arguments
  co_await client_.create(events, object, options);
}

boost::asio::awaitable<void> RestEventSink::update_count(const client::Event& event) {
  const json::value patch = {
      {"count", event.count}, {"lastTimestamp", event.last_timestamp}, {"message", event.message}};
  const std::string body = json::serialize(patch);
  const client::ResourceRef events = client::resources::events().in(event.metadata.namespace_);
  const client::PatchOptions options;
  co_await client_.patch(events, event.metadata.name, client::PatchType::kMerge, body, options);
}

namespace {

LeaseRecord to_record(const client::Lease& lease) {
  LeaseRecord record;
  record.holder_identity = lease.spec.holder_identity.value_or("");
  record.lease_duration_seconds = lease.spec.lease_duration_seconds.value_or(0);
  record.acquire_time = lease.spec.acquire_time.value_or("");
  record.renew_time = lease.spec.renew_time.value_or("");
  record.lease_transitions = lease.spec.lease_transitions.value_or(0);
  record.resource_version = lease.metadata.resource_version;
  return record;
}

client::Lease to_lease(const std::string& ns, const std::string& name, const LeaseRecord& record) {
  client::Lease lease;
  lease.metadata.namespace_ = ns;
  lease.metadata.name = name;
  lease.metadata.resource_version = record.resource_version;
  lease.spec.holder_identity = record.holder_identity;
  lease.spec.lease_duration_seconds = record.lease_duration_seconds;
  if (!record.acquire_time.empty()) lease.spec.acquire_time = record.acquire_time;
  if (!record.renew_time.empty()) lease.spec.renew_time = record.renew_time;
  lease.spec.lease_transitions = record.lease_transitions;
  return lease;
}

}  // namespace

boost::asio::awaitable<std::optional<LeaseRecord>> RestLeaseLock::get() {
  const client::ResourceRef leases = client::resources::leases().in(namespace_);
  try {
    const client::GetOptions options;
    const json::value object = co_await client_.get(leases, name_, options);
    co_return to_record(client::decode_value<client::Lease>(object));
  } catch (const client::ApiError& e) {
    if (!client::is_not_found(e)) throw;
  }
  co_return std::nullopt;
}

boost::asio::awaitable<void> RestLeaseLock::create(const LeaseRecord& record) {
  const json::value object = client::to_json(to_lease(namespace_, name_, record));
  const client::ResourceRef leases = client::resources::leases().in(namespace_);
  try {
    const client::CreateOptions options;
    co_await client_.create(leases, object, options);
  } catch (const client::ApiError& e) {
    if (client::is_already_exists(e)) throw LeaseAlreadyExists(e.what());
    throw;
  }
}

boost::asio::awaitable<void> RestLeaseLock::update(const LeaseRecord& record) {
  const json::value object = client::to_json(to_lease(namespace_, name_, record));
  const client::ResourceRef leases = client::resources::leases().in(namespace_);
  try {
    const client::UpdateOptions options;
    co_await client_.update(leases, object, options);
  } catch (const client::ApiError& e) {
    if (client::is_conflict(e)) throw LeaseConflict(e.what());
    throw;
  }
}

}  // namespace rg::op
