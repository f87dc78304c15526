// OwnerIndex: the garbage collector's graph -- for each owner uid, the objects whose
// metadata.ownerReferences name it -- kept by the Store as objects are written, so a deletion
// finds its dependents without scanning (pkg/controller/garbagecollector's GraphBuilder keeps
// the same graph from its informers, for every resource that can be listed, watched and
// deleted). Not synchronised: the Store's lock guards it.
#pragma once

#include <boost/json/fwd.hpp>

#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/resource_table.hpp"

namespace rg::sim {

class OwnerIndex {
 public:
  /// A dependent: its stored type and its store key ("namespace/name" or "name").
  using Dependent = std::pair<const ResourceType*, std::string>;

  /// The uids `object` (a whole object) names in metadata.ownerReferences, in order.
  static std::vector<std::string> owner_uids(const boost::json::object& object);

  /// Records that the object `dependent` names the owners `uids` (or names them no more).
  void add(const Dependent& dependent, const std::vector<std::string>& uids);
  void remove(const Dependent& dependent, const std::vector<std::string>& uids);
  /// An object rewritten from `before` to `after`: only the owners that changed move.
  void update(const Dependent& dependent, const boost::json::object& before,
              const boost::json::object& after);
  /// Every dependent of `owner_uid`, by type and key.
  std::vector<Dependent> dependents(std::string_view owner_uid) const;
  /// Dependents stored as `from` are now stored as `to` (a custom resource's storage moved).
  void retype(const ResourceType* from, const ResourceType* to);

 private:
  std::unordered_map<std::string, std::set<Dependent>> by_owner_;
};

}  // namespace rg::sim
