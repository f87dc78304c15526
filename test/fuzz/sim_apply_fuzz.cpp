// Fuzzes server-side apply and managedFields bookkeeping. Input: a flags byte (kind, force,
// subresource), the live object's JSON, a NUL, the apply configuration, and optionally a NUL and
// an update of the result by another manager. The live object is first created as kube-sim
// creates one (managedFields recorded, whatever the client sent in them normalised).
// Properties: conflicts and bad input fail only with ApiError; every object written is well
// formed JSON whose managedFields entries are all in the API server's encoded form; applying the
// same configuration again by the same manager neither conflicts nor changes the object.
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/api_error.hpp"
#include "sim/apply/field_manager.hpp"
#include "sim/apply/managed_fields.hpp"
#include "test/fuzz/fuzz_support.hpp"
#include "test/fuzz/patch_kinds.hpp"

namespace {

namespace json = boost::json;
using namespace rg::sim;

/// An object as a client sends it for `kind`, or false when the text is not a JSON object.
bool object_of(std::string_view text, const rg::fuzz::PatchKind& kind, json::object& object) {
  boost::system::error_code ec;
  json::value value = json::parse(text, ec);
  if (ec || !value.is_object()) return false;
  object = std::move(value.get_object());
  object["apiVersion"] = kind.api_version;
  object["kind"] = kind.kind;
  json::value& metadata = object["metadata"];
  if (!metadata.is_object()) metadata = json::object();
  metadata.get_object()["name"] = "fuzz";
  return true;
}

/// Well-formed JSON, managedFields all encoded as kube-sim encodes them.
void check_written(const json::object& object) {
  std::string text = rg::fuzz::check_reparses(object);
  const json::value* metadata = object.if_contains("metadata");
  RG_FUZZ_CHECK(metadata != nullptr && metadata->is_object(), "metadata lost: " + text);
  const json::value* managed = metadata->get_object().if_contains("managedFields");
  if (managed == nullptr) return;
  RG_FUZZ_CHECK(managed->is_array(), "managedFields is not a list: " + text);
  for (const auto& entry : managed->get_array()) {
    RG_FUZZ_CHECK(apply::is_encoded_entry(entry), "a managedFields entry is malformed: " + text);
  }
}

json::object without_managed_fields(json::object object) {
  if (auto* metadata = object.if_contains("metadata"); metadata && metadata->is_object()) {
    metadata->get_object().erase("managedFields");
  }
  return object;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t flags = data[0];
  const auto& kind = rg::fuzz::patch_kind(flags >> 2);
  const bool force = (flags & 1) != 0;
  const std::string_view subresource = (flags & 2) != 0 && kind.has_status ? "status" : "";
  auto parts = rg::fuzz::split_parts(rg::fuzz::as_text(data + 1, size - 1), 3);
  if (parts.size() < 2) return 0;
  json::object live;
  json::object configuration;
  if (!object_of(parts[0], kind, live) || !object_of(parts[1], kind, configuration)) return 0;
  configuration["metadata"].get_object().erase("managedFields");  // as Registry::apply does

  const std::string api_version(kind.api_version);
  const apply::WriteTarget creator{kind.kind, api_version, kind.has_status, "", "creator"};
  const apply::WriteTarget applier{kind.kind, api_version, kind.has_status, subresource, "applier"};
  const apply::WriteTarget updater{kind.kind, api_version, kind.has_status, "", "updater"};
  try {
    apply::record_update(nullptr, live, creator);
    check_written(live);
    json::object applied = apply::server_side_apply(live, configuration, applier, force);
    check_written(applied);
    json::object again;
    try {
      again = apply::server_side_apply(applied, configuration, applier, false);
    } catch (const ApiError& e) {
      rg::fuzz::property_failed("the same apply again does not conflict", e.what());
    }
    check_written(again);
    RG_FUZZ_CHECK(without_managed_fields(again) == without_managed_fields(applied),
                  "the same apply again changed the object: " + rg::fuzz::check_reparses(applied) +
                      "\n" + rg::fuzz::check_reparses(again));
    if (parts.size() > 2) {
      json::object updated;
      if (!object_of(parts[2], kind, updated)) return 0;
      apply::record_update(&applied, updated, updater);
      check_written(updated);
    }
  } catch (const ApiError&) {
  }
  return 0;
}
