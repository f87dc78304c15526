// ensure_default_service_account: the ServiceAccount controller's "default" per namespace.
#include "sim/service_account_controller.hpp"

#include <boost/json.hpp>

#include "sim/api_error.hpp"
#include "sim/registry.hpp"

namespace rg::sim {

void ensure_default_service_account(Registry& registry, std::string_view namespace_) {
  const auto& table = registry.table();
  const auto* namespaces = table.find("", "v1", "namespaces");
  const auto* service_accounts = table.find("", "v1", "serviceaccounts");
  const auto ns = registry.store().get(*namespaces, "", namespace_);
  if (ns == nullptr || ns->parse().at("metadata").as_object().contains("deletionTimestamp")) return;
  if (registry.store().get(*service_accounts, namespace_, kDefaultServiceAccount)) return;
  boost::json::object account{{"kind", "ServiceAccount"},
                              {"apiVersion", "v1"},
                              {"metadata", boost::json::object{{"name", kDefaultServiceAccount},
                                                               {"namespace", namespace_}}}};
  try {
    registry.create(*service_accounts, namespace_, std::move(account), {"kube-controller-manager"});
  } catch (const ApiError& error) {
    if (error.code() != 409) throw;  // made meanwhile by another write
  }
}

}  // namespace rg::sim
