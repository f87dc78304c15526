// The Lease-backed LeaseLock (see lease_lock.hpp).
#include "client/leaderelection/lease_lock.hpp"

#include "client/model/codec.hpp"
#include "client/model/lease.hpp"
#include "client/rest/api_error.hpp"

namespace rg::client {

namespace json = boost::json;

namespace {

LeaseRecord to_record(const Lease& lease) {
  LeaseRecord record;
  record.holder_identity = lease.spec.holder_identity.value_or("");
  record.lease_duration_seconds = lease.spec.lease_duration_seconds.value_or(0);
  record.acquire_time = lease.spec.acquire_time.value_or("");
  record.renew_time = lease.spec.renew_time.value_or("");
  record.lease_transitions = lease.spec.lease_transitions.value_or(0);
  record.resource_version = lease.metadata.resource_version;
  return record;
}

Lease to_lease(const std::string& ns, const std::string& name, const LeaseRecord& record) {
  Lease lease;
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
  const ResourceRef leases = resources::leases().in(namespace_);
  try {
    const GetOptions options;
    const json::value object = co_await client_.get(leases, name_, options);
    co_return to_record(decode_value<Lease>(object));
  } catch (const ApiError& e) {
    if (!is_not_found(e)) throw;
  }
  co_return std::nullopt;
}

boost::asio::awaitable<void> RestLeaseLock::create(const LeaseRecord& record) {
  const json::value object = to_json(to_lease(namespace_, name_, record));
  const ResourceRef leases = resources::leases().in(namespace_);
  try {
    const CreateOptions options;
    co_await client_.create(leases, object, options);
  } catch (const ApiError& e) {
    if (is_already_exists(e)) throw LeaseAlreadyExists(e.what());
    throw;
  }
}

boost::asio::awaitable<void> RestLeaseLock::update(const LeaseRecord& record) {
  const json::value object = to_json(to_lease(namespace_, name_, record));
  const ResourceRef leases = resources::leases().in(namespace_);
  try {
    const UpdateOptions options;
    co_await client_.update(leases, object, options);
  } catch (const ApiError& e) {
    if (is_conflict(e)) throw LeaseConflict(e.what());
    throw;
  }
}

}  // namespace rg::client
