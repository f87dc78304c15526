// Cache keys: "namespace/name" or "name" (see object_key.hpp).
#include "informer/object_key.hpp"

#include <stdexcept>

namespace rg::informer {

std::string meta_namespace_key(const client::ObjectMeta& meta) {
  return meta_namespace_key(meta.namespace_, meta.name);
}

std::string meta_namespace_key(std::string_view namespace_name, std::string_view name) {
  std::string key;
  key.reserve(namespace_name.size() + 1 + name.size());
  assign_meta_namespace_key(key, namespace_name, name);
  return key;
}

void assign_meta_namespace_key(std::string& key, std::string_view namespace_name,
                               std::string_view name) {
  if (name.empty()) {
    throw std::invalid_argument(
        "object has no metadata.name (namespace '" + std::string(namespace_name) +
        "'); only named objects can be cached: set metadata.name before storing it");
  }
  key.clear();
  if (!namespace_name.empty()) key.append(namespace_name).append(1, '/');
  key.append(name);
}

std::string namespace_key(std::string_view namespace_name, std::string_view name) {
  if (namespace_name.empty()) return std::string(name);
  std::string key;
  key.reserve(namespace_name.size() + 1 + name.size());
  key.append(namespace_name).append(1, '/').append(name);
  return key;
}

ObjectName split_meta_namespace_key(std::string_view key) {
  const auto bad = [&](std::string_view why) {
    return std::invalid_argument("malformed cache key '" + std::string(key) + "': " +
                                 std::string(why) + " (expected 'namespace/name' or 'name')");
  };
  const auto slash = key.find('/');
  if (slash == std::string_view::npos) {
    if (key.empty()) throw bad("it is empty");
    return {"", std::string(key)};
  }
  if (key.find('/', slash + 1) != std::string_view::npos) throw bad("it has more than one '/'");
  if (slash == 0) throw bad("the namespace before '/' is empty");
  if (slash + 1 == key.size()) throw bad("the name after '/' is empty");
  return {std::string(key.substr(0, slash)), std::string(key.substr(slash + 1))};
}

}  // namespace rg::informer
