// Labels: a set of Kubernetes labels (or annotations), a sorted map with heterogeneous lookup.
#pragma once

#include <boost/container/flat_map.hpp>

#include <functional>
#include <string>

namespace rg::client {

using Labels = boost::container::flat_map<std::string, std::string, std::less<>>;

}  // namespace rg::client
