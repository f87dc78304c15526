// Condition's schema and its set/find helpers (see condition.hpp).
#include "client/model/condition.hpp"

#include <algorithm>
#include <utility>

#include "client/model/schema.hpp"

namespace rg::client {

const Condition* find_status_condition(const std::vector<Condition>& conditions,
                                       std::string_view type) {
  const auto it = std::find_if(conditions.begin(), conditions.end(),
                               [&](const Condition& c) { return c.type == type; });
  return it == conditions.end() ? nullptr : &*it;
}

bool set_status_condition(std::vector<Condition>& conditions, Condition condition, WallTime now) {
  const auto it = std::find_if(conditions.begin(), conditions.end(),
                               [&](const Condition& c) { return c.type == condition.type; });
  if (it == conditions.end()) {
    if (condition.last_transition_time == WallTime{}) condition.last_transition_time = now;
    conditions.push_back(std::move(condition));
    return true;
  }
  Condition& existing = *it;
  const Condition before = existing;
  if (existing.status != condition.status) {
    existing.status = std::move(condition.status);
    existing.last_transition_time =
        condition.last_transition_time != WallTime{} ? condition.last_transition_time : now;
  }
  existing.reason = std::move(condition.reason);
  existing.message = std::move(condition.message);
  existing.observed_generation = condition.observed_generation;
  return existing != before;
}

namespace detail {

const StructDesc& schema_of(Tag<Condition>) {
  static constexpr FieldDesc fields[] = {
      field<&Condition::type>("type"),
      field<&Condition::status>("status"),
      field<&Condition::observed_generation>("observedGeneration"),
      field<&Condition::last_transition_time>("lastTransitionTime"),
      field<&Condition::reason>("reason"),
      field<&Condition::message>("message"),
  };
  static constexpr StructDesc desc{"Condition", fields};
  return desc;
}

}  // namespace detail

}  // namespace rg::client
