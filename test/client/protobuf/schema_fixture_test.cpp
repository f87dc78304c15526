// Checks the JSON names in the protobuf schema tables against the Kubernetes round-trip fixtures
// (../shared/fixtures/roundtrip), in which every field of a type is populated: a name in a table
// that the fixture lacks at the same place is a typo or a field the API does not have.
#include <doctest/doctest.h>

#include <boost/json.hpp>

#include <string>
#include <vector>

#include "client/protobuf/schema.hpp"
#include "test/roundtrip_fixtures.hpp"

using namespace rg::client::protobuf;
namespace json = boost::json;

namespace {

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

TEST_CASE("schema JSON names exist in the round-trip fixtures" *
          rg::testing::skip_without_roundtrip_fixtures()) {
  struct Case {
    const char* fixture;
    const MessageSpec* spec;
  };
  for (const Case& c :
       {Case{"apps.v1.Deployment.json", &kDeployment}, Case{"core.v1.Pod.json", &kPod},
        Case{"core.v1.Namespace.json", &kNamespace},
        Case{"authorization.k8s.io.v1.SelfSubjectAccessReview.json", &kSelfSubjectAccessReview},
        Case{"policy.v1.Eviction.json", &kEviction}}) {
    const auto fixture = json::parse(rg::testing::read_roundtrip_fixture(c.fixture));
    std::vector<std::string> missing;
    missing_names(*c.spec, fixture.as_object(), c.spec->name.data(), missing);
    std::string listed;
    for (const auto& m : missing) {
      // An alpha field of the newest generated.proto, newer than the fixtures.
      if (m != "Deployment.spec.podReplacementPolicy") listed += m + " ";
    }
    CAPTURE(std::string(c.fixture));
    CHECK(listed == "");
  }
}
