// Parses a replica-guard command line with the operator's own flag definitions and checks, and
// prints what it parsed (one `name=value` a line) and the permissions the operator requires with
// those flags (`permission=NAMESPACE GROUP RESOURCE VERB`, "-" for none), or why it rejects it
// (exit 1): test/ship/check_flags.py and rbac_drift.py feed it the flags that the Helm chart and
// manifests/ render.
#include <CLI/CLI.hpp>

#include <iostream>
#include <stdexcept>
#include <string>

#include "operator/options.hpp"
#include "operator/permissions.hpp"

int main(int argc, char** argv) {
  CLI::App app{"parse_flags: accepts or rejects a replica-guard command line"};
  rg::op::Options o;
  rg::op::add_flags(app, o);
  try {
    app.parse(argc, argv);
    rg::op::validate(o);
  } catch (const CLI::ParseError& e) {
    std::cerr << "rejected: " << e.what() << '\n';
    return 1;
  } catch (const std::invalid_argument& e) {
    std::cerr << "rejected: " << e.what() << '\n';
    return 1;
  }
  std::string namespaces;
  for (const auto& n : o.namespaces) namespaces += (namespaces.empty() ? "" : ",") + n;
  std::cout << "metrics-bind-address=" << o.metrics_bind_address << '\n'
            << "metrics-secure=" << o.metrics_secure << '\n'
            << "metrics-cert-path=" << o.metrics_cert_path << '\n'
            << "health-probe-bind-address=" << o.health_probe_bind_address << '\n'
            << "leader-elect=" << o.leader_elect << '\n'
            << "leader-election-id=" << o.leader_election_id << '\n'
            << "leader-election-namespace=" << o.leader_election_namespace << '\n'
            << "namespaces=" << namespaces << '\n'
            << "deployment-selector=" << o.deployment_selector << '\n'
            << "workers=" << o.workers << '\n'
            << "dry-run=" << o.dry_run << '\n'
            << "node-grace-period=" << o.node_grace_period << '\n'
            << "node-lease-grace=" << o.node_lease_grace << '\n'
            << "scale-down-delay=" << o.scale_down_delay << '\n'
            << "default-max-surge=" << o.default_max_surge << '\n'
            << "max-unhealthy-node-fraction=" << o.max_unhealthy_node_fraction << '\n'
            << "max-total-surge=" << (o.max_total_surge ? std::to_string(*o.max_total_surge) : "")
            << '\n'
            << "sync-period=" << o.sync_period << '\n'
            << "watch-list=" << o.watch_list << '\n'
            << "kube-api-qps=" << o.kube_api_qps << '\n'
            << "kube-api-burst=" << o.kube_api_burst << '\n'
            << "log-format=" << o.log_format << '\n'
            << "verbosity=" << o.verbosity << '\n';
  const auto dash = [](const std::string& text) { return text.empty() ? "-" : text; };
  for (const auto& p : rg::op::required_permissions(o, "$(POD_NAMESPACE)")) {
    std::cout << "permission=" << dash(p.namespace_) << ' ' << dash(p.group) << ' ' << p.resource
              << (p.subresource.empty() ? "" : "/" + p.subresource) << ' ' << p.verb << '\n';
  }
  return 0;
}
