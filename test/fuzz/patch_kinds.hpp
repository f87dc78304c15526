// The kinds the patch and apply harnesses write, chosen by input bits: built-in kinds whose
// lists have merge keys (Deployment, Pod, Node), one without (ConfigMap), a version-converted one
// (HorizontalPodAutoscaler) and a custom resource kube-sim knows nothing about.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace rg::fuzz {

struct PatchKind {
  std::string_view kind;
  std::string_view api_version;
  bool has_status;
};

inline constexpr std::array<PatchKind, 6> kPatchKinds{{
    {"Deployment", "apps/v1", true},
    {"Pod", "v1", true},
    {"Node", "v1", true},
    {"ConfigMap", "v1", false},
    {"HorizontalPodAutoscaler", "autoscaling/v2", true},
    {"Widget", "example.com/v1", false},
}};

inline const PatchKind& patch_kind(std::uint8_t bits) {
  return kPatchKinds[bits % kPatchKinds.size()];
}

}  // namespace rg::fuzz
