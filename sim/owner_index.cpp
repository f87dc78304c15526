// OwnerIndex: owner uid -> dependents, updated on every stored write.
#include "sim/owner_index.hpp"

#include <boost/json.hpp>

namespace rg::sim {

std::vector<std::string> OwnerIndex::owner_uids(const boost::json::object& object) {
  std::vector<std::string> uids;
  const auto* metadata = object.if_contains("metadata");
  if (metadata == nullptr || !metadata->is_object()) return uids;
  const auto* refs = metadata->get_object().if_contains("ownerReferences");
  if (refs == nullptr || !refs->is_array()) return uids;
  for (const auto& ref : refs->get_array()) {
    if (!ref.is_object()) continue;
    const auto* uid = ref.get_object().if_contains("uid");
    if (uid != nullptr && uid->is_string() && !uid->get_string().empty())
      uids.emplace_back(uid->get_string());
  }
  return uids;
}

void OwnerIndex::add(const Dependent& dependent, const std::vector<std::string>& uids) {
  for (const auto& uid : uids) by_owner_[uid].insert(dependent);
}

void OwnerIndex::remove(const Dependent& dependent, const std::vector<std::string>& uids) {
  for (const auto& uid : uids) {
    auto it = by_owner_.find(uid);
    if (it == by_owner_.end()) continue;
    it->second.erase(dependent);
    if (it->second.empty()) by_owner_.erase(it);
  }
}

void OwnerIndex::update(const Dependent& dependent, const boost::json::object& before,
                        const boost::json::object& after) {
  auto old_uids = owner_uids(before);
  auto new_uids = owner_uids(after);
  if (old_uids == new_uids) return;
  remove(dependent, old_uids);
  add(dependent, new_uids);
}

std::vector<OwnerIndex::Dependent> OwnerIndex::dependents(std::string_view owner_uid) const {
  auto it = by_owner_.find(std::string(owner_uid));
  if (it == by_owner_.end()) return {};
  return {it->second.begin(), it->second.end()};
}

void OwnerIndex::retype(const ResourceType* from, const ResourceType* to) {
  for (auto& [uid, dependents] : by_owner_) {
    std::set<Dependent> moved;
    for (auto it = dependents.begin(); it != dependents.end();) {
      if (it->first == from) {
        moved.emplace(to, it->second);
        it = dependents.erase(it);
      } else {
        ++it;
      }
    }
    dependents.merge(moved);
  }
}

}  // namespace rg::sim
