// pod-template-hash (see pod_template_hash.hpp).
#include "sim/cluster/pod_template_hash.hpp"

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <algorithm>
#include <vector>

namespace rg::sim::cluster {
namespace json = boost::json;
namespace {

void write_canonical(const json::value& value, std::string& out) {
  if (const auto* object = value.if_object()) {
    std::vector<const json::key_value_pair*> members;
    for (const auto& member : *object) members.push_back(&member);
    std::sort(members.begin(), members.end(), [](auto* a, auto* b) { return a->key() < b->key(); });
    out += '{';
    for (std::size_t i = 0; i < members.size(); ++i) {
      if (i != 0) out += ',';
      out += json::serialize(json::value(members[i]->key()));
      out += ':';
      write_canonical(members[i]->value(), out);
    }
    out += '}';
  } else if (const auto* array = value.if_array()) {
    out += '[';
    for (std::size_t i = 0; i < array->size(); ++i) {
      if (i != 0) out += ',';
      write_canonical((*array)[i], out);
    }
    out += ']';
  } else {
    out += json::serialize(value);
  }
}

std::uint32_t fnv1a_32(std::string_view text, std::uint32_t hash = 2166136261U) {
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 16777619U;
  }
  return hash;
}

}  // namespace

std::string safe_encode(std::string_view text) {
  static constexpr std::string_view kAlphabet = "bcdfghjklmnpqrstvwxz2456789";
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) out += kAlphabet[c % kAlphabet.size()];
  return out;
}

std::string canonical_json(const json::value& value) {
  std::string out;
  write_canonical(value, out);
  return out;
}

std::string pod_template_hash(const json::object& pod_template, std::int64_t collision_count) {
  // The hash label itself is not part of the template that is hashed.
  json::object hashed = pod_template;
  if (auto* metadata = hashed.if_contains("metadata"); metadata && metadata->is_object())
    if (auto* labels = metadata->get_object().if_contains("labels"); labels && labels->is_object())
      labels->get_object().erase("pod-template-hash");
  std::uint32_t hash = fnv1a_32(canonical_json(hashed));
  if (collision_count > 0) {
    // ComputeHash writes the collision count into the hasher after the template.
    hash = fnv1a_32(std::to_string(collision_count), hash);
  }
  return safe_encode(std::to_string(hash));
}

}  // namespace rg::sim::cluster
