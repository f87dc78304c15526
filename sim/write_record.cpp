// WriteRecord (see write_record.hpp).
#include "sim/write_record.hpp"

#include <fmt/format.h>
#include <boost/json.hpp>

#include <algorithm>
#include <charconv>

#include "sim/api_error.hpp"
#include "sim/json_fields.hpp"
#include "sim/registry.hpp"
#include "sim/request_info.hpp"
#include "sim/responses.hpp"

namespace rg::sim {
namespace {

namespace json = boost::json;

double unix_seconds(std::chrono::system_clock::time_point when) {
  const auto since_epoch = when.time_since_epoch();
  return static_cast<double>(
             std::chrono::duration_cast<std::chrono::microseconds>(since_epoch).count()) /
         1e6;
}

// What every entry has: who wrote what, when.
RecordedWrite describe(const HttpRequest& request, const RequestInfo& info, int code) {
  RecordedWrite entry;
  entry.time = unix_seconds(std::chrono::system_clock::now());
  entry.received = unix_seconds(request.received);
  entry.verb = info.verb;
  entry.method = request.method;
  entry.path = request.path;
  entry.group = info.group;
  entry.resource = info.resource;
  entry.subresource = info.subresource;
  entry.namespace_ = info.namespace_;
  entry.name = info.name;
  entry.user = request.user;
  entry.user_agent = std::string(request.header("user-agent"));
  if (auto manager = request.param("fieldManager"))
    entry.field_manager = std::string(*manager);
  else
    entry.field_manager = manager_from_user_agent(entry.user_agent);
  entry.code = code;
  return entry;
}

// The fields of the written object a reliability check reads.
void add_object_fields(RecordedWrite& entry, const StoredObject& object) {
  const bool deployment = entry.group == "apps" && entry.resource == "deployments";
  const bool lease = entry.group == "coordination.k8s.io" && entry.resource == "leases";
  if (!deployment && !lease) return;
  const json::object parsed = object.parse();
  const json::object* spec = find_object(parsed, "spec");
  if (deployment) {
    if (spec != nullptr)
      if (const auto* replicas = spec->if_contains("replicas"); replicas && replicas->is_int64())
        entry.replicas = replicas->get_int64();
    if (const auto* metadata = find_object(parsed, "metadata"))
      if (const auto* annotations = find_object(*metadata, "annotations"))
        for (const auto& [key, value] : *annotations)
          if (value.is_string())
            entry.annotations.emplace_back(std::string(key), std::string(value.get_string()));
    return;
  }
  if (spec == nullptr) return;
  const auto* holder = spec->if_contains("holderIdentity");
  entry.holder_identity =
      holder != nullptr && holder->is_string() ? std::string(holder->get_string()) : std::string();
  if (const auto* duration = spec->if_contains("leaseDurationSeconds");
      duration != nullptr && duration->is_int64())
    entry.lease_duration_seconds = duration->get_int64();
}

json::object to_json(const RecordedWrite& entry) {
  json::object out{{"sequence", entry.sequence},
                   {"time", entry.time},
                   {"received", entry.received},
                   {"verb", entry.verb},
                   {"method", entry.method},
                   {"path", entry.path},
                   {"group", entry.group},
                   {"resource", entry.resource},
                   {"subresource", entry.subresource},
                   {"namespace", entry.namespace_},
                   {"name", entry.name},
                   {"user", entry.user},
                   {"fieldManager", entry.field_manager},
                   {"userAgent", entry.user_agent},
                   {"code", entry.code},
                   {"resourceVersion", entry.resource_version}};
  if (entry.replicas) out["replicas"] = *entry.replicas;
  if (!entry.annotations.empty() || entry.replicas) {
    json::object annotations;
    for (const auto& [key, value] : entry.annotations) annotations[key] = value;
    out["annotations"] = std::move(annotations);
  }
  if (entry.holder_identity) out["holderIdentity"] = *entry.holder_identity;
  if (entry.lease_duration_seconds) out["leaseDurationSeconds"] = *entry.lease_duration_seconds;
  return out;
}

std::uint64_t since_param(const HttpRequest& request) {
  const auto text = request.param("since");
  if (!text) return 0;
  std::uint64_t value = 0;
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (ec != std::errc() || end != text->data() + text->size())
    throw errors::bad_request(
        fmt::format("since must be a sequence number (the last one read), not \"{}\"", *text));
  return value;
}

}  // namespace

void WriteRecord::written(const HttpRequest& request, const StoredObject& object, int code) {
  RecordedWrite entry = describe(request, parse_request_info(request), code);
  entry.namespace_ = object.namespace_;  // a create's path names no object
  entry.name = object.name;
  entry.resource_version = std::to_string(object.resource_version);
  add_object_fields(entry, object);
  append(std::move(entry));
}

void WriteRecord::rejected(const HttpRequest& request, int code) {
  const RequestInfo info = parse_request_info(request);
  if (!info.is_resource_request) return;
  append(describe(request, info, code));
}

void WriteRecord::append(RecordedWrite entry) {
  std::lock_guard lock(mutex_);
  entry.sequence = next_sequence_++;
  entries_.push_back(std::move(entry));
  while (entries_.size() > capacity_) {
    entries_.pop_front();
    ++dropped_;
  }
}

std::vector<RecordedWrite> WriteRecord::since(std::uint64_t after) const {
  std::lock_guard lock(mutex_);
  // Entries are in sequence order: find the first one after `after` rather than walking them all
  // (a bench polling every 20 ms over 50,000 entries held the lock every API write needs).
  const auto first =
      std::partition_point(entries_.begin(), entries_.end(),
                           [&](const RecordedWrite& e) { return e.sequence <= after; });
  return {first, entries_.end()};
}

std::uint64_t WriteRecord::dropped() const {
  std::lock_guard lock(mutex_);
  return dropped_;
}

void WriteRecord::clear() {
  std::lock_guard lock(mutex_);
  entries_.clear();
}

HttpResponse WriteRecord::serve(const HttpRequest& request) {
  if (request.path != "/sim/writes") throw errors::path_not_found();
  if (request.method == "DELETE") {
    clear();
  } else if (request.method != "GET") {
    throw errors::bad_request("/sim/writes answers GET (?since=N) and DELETE");
  }
  json::array writes;
  for (const auto& entry : since(since_param(request))) writes.push_back(to_json(entry));
  std::uint64_t last = 0;
  {
    std::lock_guard lock(mutex_);
    last = next_sequence_ - 1;
  }
  json::object body{{"writes", std::move(writes)}, {"dropped", dropped()}, {"last", last}};
  return json_response(200, json::serialize(body));
}

}  // namespace rg::sim
