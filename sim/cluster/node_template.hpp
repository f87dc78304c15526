// What a kubelet registers: a realistic Node (labels, addresses, capacity and allocatable,
// nodeInfo, daemon endpoints, healthy conditions) as a small cloud-less worker node looks.
#pragma once

#include <boost/json/object.hpp>

#include <string>
#include <string_view>

namespace rg::sim::cluster {

/// A Ready worker Node named `name`; `index` makes its addresses and pod CIDR unique.
boost::json::object realistic_node(std::string_view name, unsigned index,
                                   std::string_view kubelet_version);

/// Fills what the kubelet reports about its machine into a node's status (capacity,
/// allocatable, addresses, daemonEndpoints, nodeInfo), for nodes created bare through the API.
void fill_node_status(boost::json::object& status, std::string_view name,
                      std::string_view kubelet_version, unsigned index = 0);

}  // namespace rg::sim::cluster
