// Checks the JSON names in the protobuf schema tables against the Kubernetes round-trip fixtures
// (../shared/fixtures/roundtrip), in which every field of a type is populated: a name in a table
// that the fixture lacks at the same place is a typo or a field the API does not have.
#include <doctest/doctest.h>

#include <boost/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "client/protobuf/schema.hpp"

using namespace rg::client::protobuf;
namespace json = boost::json;

namespace {

std::optional<json::value> load_fixture(const std::string& name) {
  const char* shared = std::getenv("RG_SHARED_DIR");
  if (shared == nullptr) return std::nullopt;
  std::ifstream in(std::filesystem::path(shared) / "fixtures" / "roundtrip" / name);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  return json::parse(text.str());
}

/// Every JSON name of `spec` that `object` lacks, as paths.
void missing_names(const MessageSpec& spec, const json::object& object, const std::string& path,
                   std::vector<std::string>& missing) {
  for (const FieldSpec& field : spec.fields) {
    if (field.kind == FieldKind::kInline) {
      missing_names(*field.message, object, path, missing);
      continue;
    }
    std::string here = path + "." + std::string(field.json_name);
    const json::value* value = object.if_contains(field.json_name);
    if (value == nullptr) {
      missing.push_back(here);
      continue;
    }
    if (field.kind != FieldKind::kMessage) continue;
    const json::value* element = value;
    if ((field.flags & kRepeated) != 0) {
      if (!value->is_array() || value->as_array().empty()) continue;
      element = &value->as_array().front();
    }
    if (element->is_object()) missing_names(*field.message, element->as_object(), here, missing);
  }
}

}  // namespace

TEST_CASE("schema JSON names exist in the round-trip fixtures") {
  struct Case {
    const char* fixture;
    const MessageSpec* spec;
  };
  for (const Case& c :
       {Case{"apps.v1.Deployment.json", &kDeployment}, Case{"core.v1.Pod.json", &kPod},
        Case{"core.v1.Namespace.json", &kNamespace},
        Case{"authorization.k8s.io.v1.SelfSubjectAccessReview.json", &kSelfSubjectAccessReview},
        Case{"policy.v1.Eviction.json", &kEviction}}) {
    auto fixture = load_fixture(c.fixture);
    if (!fixture) {
      MESSAGE("RG_SHARED_DIR fixtures not found; skipping ", c.fixture);
      return;
    }
    std::vector<std::string> missing;
    missing_names(*c.spec, fixture->as_object(), c.spec->name.data(), missing);
    std::string listed;
    for (const auto& m : missing) {
      // An alpha field of the newest generated.proto, newer than the fixtures.
      if (m != "Deployment.spec.podReplacementPolicy") listed += m + " ";
    }
    CAPTURE(std::string(c.fixture));
    CHECK(listed == "");
  }
}
