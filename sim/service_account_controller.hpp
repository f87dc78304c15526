// The ServiceAccount controller's job (kube-controller-manager's "serviceaccount-controller"):
// every active namespace has a ServiceAccount named "default", made when the namespace is
// created and made again when it is deleted. kube-sim does it inside the write that calls for
// it, so the ServiceAccount exists as soon as its namespace does.
#pragma once

#include <string_view>

namespace rg::sim {

class Registry;

/// The name of the ServiceAccount every namespace gets.
inline constexpr std::string_view kDefaultServiceAccount = "default";

/// Creates ServiceAccount "default" in `namespace_` unless it exists or the namespace does not
/// (or is terminating). Written by field manager "kube-controller-manager".
void ensure_default_service_account(Registry& registry, std::string_view namespace_);

}  // namespace rg::sim
