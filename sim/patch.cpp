// Merge, JSON and strategic merge patches (see patch.hpp). Strategic merge keys come from
// sim/apply/list_types (the patchStrategy/patchMergeKey tags of the core/v1 and apps/v1 types).
#include "sim/patch.hpp"

#include <fmt/format.h>
#include <boost/json.hpp>

#include <algorithm>
#include <charconv>
#include <vector>

#include "sim/api_error.hpp"
#include "sim/apply/list_types.hpp"
#include "sim/body.hpp"

namespace rg::sim {
namespace {

namespace json = boost::json;

ApiError unprocessable(std::string message) {
  client::Status status;
  status.status = "Failure";
  status.code = 422;
  status.reason = "Invalid";
  status.message = std::move(message);
  return ApiError(std::move(status));
}

template <class Predicate>
void erase_items(json::array& array, Predicate predicate) {
  array.erase(std::remove_if(array.begin(), array.end(), predicate), array.end());
}

// ---- JSON patch ----

std::vector<std::string> split_pointer(std::string_view pointer) {
  if (pointer.empty()) return {};
  if (pointer.front() != '/')
    throw errors::bad_request(fmt::format("invalid JSON pointer \"{}\"", pointer));
  std::vector<std::string> tokens;
  pointer.remove_prefix(1);
  for (;;) {
    auto slash = pointer.find('/');
    std::string token(pointer.substr(0, slash));
    std::string unescaped;
    for (std::size_t i = 0; i < token.size(); ++i) {
      if (token[i] == '~' && i + 1 < token.size() && (token[i + 1] == '0' || token[i + 1] == '1')) {
        unescaped += token[i + 1] == '0' ? '~' : '/';
        ++i;
      } else {
        unescaped += token[i];
      }
    }
    tokens.push_back(std::move(unescaped));
    if (slash == std::string_view::npos) break;
    pointer.remove_prefix(slash + 1);
  }
  return tokens;
}

std::size_t array_index(const std::string& token, std::size_t size, bool allow_end,
                        std::string_view path) {
  if (allow_end && token == "-") return size;
  std::size_t index = 0;
  auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), index);
  if (ec != std::errc() || end != token.data() + token.size() || index > size ||
      (!allow_end && index == size))
    throw unprocessable(
        fmt::format("add operation does not apply: doc is missing path: \"{}\"", path));
  return index;
}

// The container of the last token and the last token.
json::value& parent_of(json::value& doc, const std::vector<std::string>& tokens,
                       std::string_view path) {
  json::value* current = &doc;
  for (std::size_t i = 0; i + 1 < tokens.size(); ++i) {
    if (auto* object = current->if_object()) {
      auto* next = object->if_contains(tokens[i]);
      if (next == nullptr)
        throw unprocessable(fmt::format("doc is missing path: \"{}\": missing value", path));
      current = next;
    } else if (auto* array = current->if_array()) {
      current = &(*array)[array_index(tokens[i], array->size(), false, path)];
    } else {
      throw unprocessable(fmt::format("doc is missing path: \"{}\": missing value", path));
    }
  }
  return *current;
}

json::value get_at(json::value& doc, std::string_view path) {
  auto tokens = split_pointer(path);
  if (tokens.empty()) return doc;
  auto& parent = parent_of(doc, tokens, path);
  if (auto* object = parent.if_object()) {
    if (auto* value = object->if_contains(tokens.back())) return *value;
  } else if (auto* array = parent.if_array()) {
    return (*array)[array_index(tokens.back(), array->size(), false, path)];
  }
  throw unprocessable(fmt::format("doc is missing path: \"{}\": missing value", path));
}

json::value remove_at(json::value& doc, std::string_view path) {
  auto tokens = split_pointer(path);
  if (tokens.empty()) throw unprocessable("cannot remove the whole document");
  auto& parent = parent_of(doc, tokens, path);
  if (auto* object = parent.if_object()) {
    auto it = object->find(tokens.back());
    if (it == object->end())
      throw unprocessable(
          fmt::format("remove operation does not apply: doc is missing path: \"{}\"", path));
    json::value removed = it->value();
    object->erase(it);
    return removed;
  }
  if (auto* array = parent.if_array()) {
    auto index = array_index(tokens.back(), array->size(), false, path);
    json::value removed = (*array)[index];
    array->erase(array->begin() + static_cast<std::ptrdiff_t>(index));
    return removed;
  }
  throw unprocessable(
      fmt::format("remove operation does not apply: doc is missing path: \"{}\"", path));
}

void add_at(json::value& doc, std::string_view path, json::value value, bool replace) {
  auto tokens = split_pointer(path);
  if (tokens.empty()) {
    doc = std::move(value);
    return;
  }
  auto& parent = parent_of(doc, tokens, path);
  if (auto* object = parent.if_object()) {
    if (replace && !object->contains(tokens.back()))
      throw unprocessable(
          fmt::format("replace operation does not apply: doc is missing key: {}", path));
    (*object)[tokens.back()] = std::move(value);
  } else if (auto* array = parent.if_array()) {
    auto index = array_index(tokens.back(), array->size(), !replace, path);
    if (replace)
      (*array)[index] = std::move(value);
    else
      array->insert(array->begin() + static_cast<std::ptrdiff_t>(index), std::move(value));
  } else {
    throw unprocessable(
        fmt::format("add operation does not apply: doc is missing path: \"{}\"", path));
  }
}

// ---- strategic merge ----

// The merge key of a list field, "" for replace; "*" marks a primitive list that merges.
std::string_view merge_key(std::string_view kind, const std::vector<std::string>& path) {
  const auto type = apply::list_type(kind, path);
  if (type.kind == apply::ListKind::kSet) return "*";
  return type.merge_key;
}

bool same_key(const json::value& a, const json::value& b, std::string_view key) {
  const auto* ao = a.if_object();
  const auto* bo = b.if_object();
  if (ao == nullptr || bo == nullptr) return false;
  const auto* av = ao->if_contains(key);
  const auto* bv = bo->if_contains(key);
  return av != nullptr && bv != nullptr && *av == *bv;
}

json::value strategic(json::value target, const json::value& patch, std::string_view kind,
                      std::vector<std::string>& path);

json::array merge_list(json::array target, const json::array& patch, std::string_view kind,
                       std::vector<std::string>& path) {
  auto key = merge_key(kind, path);
  if (key.empty()) {
    json::array out;
    for (const auto& item : patch)
      if (!(item.is_object() && item.get_object().contains("$patch"))) out.push_back(item);
    return out;
  }
  if (key == "*") {
    for (const auto& item : patch)
      if (std::find(target.begin(), target.end(), item) == target.end()) target.push_back(item);
    return target;
  }
  for (const auto& item : patch) {
    if (const auto* object = item.if_object()) {
      if (const auto* directive = object->if_contains("$patch");
          directive != nullptr && directive->is_string()) {
        if (directive->get_string() == "replace") {
          json::array replaced;
          for (const auto& other : patch)
            if (!(other.is_object() && other.get_object().contains("$patch")))
              replaced.push_back(other);
          return replaced;
        }
        if (directive->get_string() == "delete") {
          erase_items(target,
                      [&](const json::value& existing) { return same_key(existing, item, key); });
          continue;
        }
      }
    }
    auto existing = std::find_if(target.begin(), target.end(),
                                 [&](const json::value& e) { return same_key(e, item, key); });
    if (existing != target.end())
      *existing = strategic(std::move(*existing), item, kind, path);
    else
      target.push_back(strategic(json::object(), item, kind, path));
  }
  return target;
}

void apply_element_order(json::array& list, const json::array& order, std::string_view key) {
  json::array sorted;
  for (const auto& wanted : order) {
    auto it = std::find_if(list.begin(), list.end(), [&](const json::value& e) {
      return key.empty() || key == "*" ? e == wanted : same_key(e, wanted, key);
    });
    if (it != list.end()) {
      sorted.push_back(std::move(*it));
      list.erase(it);
    }
  }
  for (auto& rest : list) sorted.push_back(std::move(rest));
  list = std::move(sorted);
}

json::value strategic(json::value target, const json::value& patch, std::string_view kind,
                      std::vector<std::string>& path) {
  const auto* patch_object = patch.if_object();
  if (patch_object == nullptr) return patch;
  if (const auto* directive = patch_object->if_contains("$patch");
      directive != nullptr && directive->is_string()) {
    if (directive->get_string() == "replace") {
      json::object replaced = *patch_object;
      replaced.erase("$patch");
      return replaced;
    }
    if (directive->get_string() == "delete") return nullptr;
  }
  if (!target.is_object()) target = json::object();
  auto& object = target.get_object();
  std::vector<std::pair<std::string, const json::array*>> orders;
  const json::array* retain = nullptr;
  for (const auto& [raw_key, value] : *patch_object) {
    std::string_view field = raw_key;
    if (field == "$patch") continue;
    if (field == "$retainKeys") {
      retain = value.if_array();
      continue;
    }
    if (field.starts_with("$setElementOrder/")) {
      if (const auto* order = value.if_array())
        orders.emplace_back(std::string(field.substr(17)), order);
      continue;
    }
    if (field.starts_with("$deleteFromPrimitiveList/")) {
      auto name = field.substr(25);
      if (auto* list = object.if_contains(name);
          list != nullptr && list->is_array() && value.is_array()) {
        const json::array& removed = value.get_array();
        erase_items(list->get_array(), [&](const json::value& e) {
          return std::find(removed.begin(), removed.end(), e) != removed.end();
        });
      }
      continue;
    }
    if (value.is_null()) {
      object.erase(field);
      continue;
    }
    path.emplace_back(field);
    auto* existing = object.if_contains(field);
    if (value.is_array() && existing != nullptr && existing->is_array()) {
      object[field] = merge_list(std::move(existing->get_array()), value.get_array(), kind, path);
    } else if (value.is_array()) {
      object[field] = merge_list(json::array(), value.get_array(), kind, path);
    } else if (value.is_object()) {
      auto merged =
          strategic(existing != nullptr ? std::move(*existing) : json::value(json::object()), value,
                    kind, path);
      if (merged.is_null())
        object.erase(field);
      else
        object[field] = std::move(merged);
    } else {
      object[field] = value;
    }
    path.pop_back();
  }
  for (const auto& [field, order] : orders) {
    path.push_back(field);
    if (auto* list = object.if_contains(field); list != nullptr && list->is_array())
      apply_element_order(list->get_array(), *order, merge_key(kind, path));
    path.pop_back();
  }
  if (retain != nullptr) {
    std::vector<std::string> dropped;
    for (const auto& entry : object)
      if (std::find(retain->begin(), retain->end(), json::value(entry.key())) == retain->end())
        dropped.emplace_back(entry.key());
    for (const auto& key : dropped) object.erase(key);
  }
  return target;
}

}  // namespace

PatchType patch_type_from(std::string_view content_type) {
  content_type = content_type.substr(0, content_type.find(';'));
  if (content_type == "application/json-patch+json") return PatchType::kJson;
  if (content_type == "application/merge-patch+json") return PatchType::kMerge;
  if (content_type == "application/strategic-merge-patch+json") return PatchType::kStrategic;
  if (content_type == "application/apply-patch+yaml") return PatchType::kApply;
  throw errors::unsupported_media_type(
      "application/json-patch+json, application/merge-patch+json, "
      "application/strategic-merge-patch+json, application/apply-patch+yaml");
}

json::value merge_patch(json::value target, const json::value& patch) {
  const auto* patch_object = patch.if_object();
  if (patch_object == nullptr) return patch;
  if (!target.is_object()) target = json::object();
  auto& object = target.get_object();
  for (const auto& [key, value] : *patch_object) {
    if (value.is_null()) {
      object.erase(key);
    } else if (auto* existing = object.if_contains(key)) {
      *existing = merge_patch(std::move(*existing), value);
    } else {
      object[key] = merge_patch(json::value(), value);
    }
  }
  return target;
}

json::value json_patch(json::value target, const json::value& patch) {
  const auto* operations = patch.if_array();
  if (operations == nullptr)
    throw errors::bad_request("a JSON patch must be an array of operations");
  if (operations->size() > kMaxJsonPatchOperations) {
    throw errors::request_entity_too_large(
        fmt::format("The allowed maximum operations in a JSON patch is {}, got {}",
                    kMaxJsonPatchOperations, operations->size()));
  }
  std::size_t copied = 0;  // bytes the copy operations added, against kJsonPatchMaxCopyBytes
  for (const auto& entry : *operations) {
    const auto* op = entry.if_object();
    auto text = [&](std::string_view key) -> std::string {
      const auto* value = op != nullptr ? op->if_contains(key) : nullptr;
      if (value == nullptr || !value->is_string())
        throw errors::bad_request(fmt::format("JSON patch operation without a string \"{}\"", key));
      return std::string(value->get_string());
    };
    auto value = [&]() -> json::value {
      const auto* v = op->if_contains("value");
      if (v == nullptr) throw errors::bad_request("JSON patch operation without \"value\"");
      return *v;
    };
    const std::string name = text("op");
    const std::string path = text("path");
    if (name == "add") {
      add_at(target, path, value(), false);
    } else if (name == "remove") {
      remove_at(target, path);
    } else if (name == "replace") {
      add_at(target, path, value(), true);
    } else if (name == "move") {
      auto moved = remove_at(target, text("from"));
      add_at(target, path, std::move(moved), false);
    } else if (name == "copy") {
      json::value copy = get_at(target, text("from"));
      copied += json::serialize(copy).size();
      if (copied > kJsonPatchMaxCopyBytes) {
        throw unprocessable(fmt::format(
            "Unable to complete the copy, the accumulated size increase of copy is {}, exceeding "
            "the limit {}",
            copied, kJsonPatchMaxCopyBytes));
      }
      add_at(target, path, std::move(copy), false);
    } else if (name == "test") {
      if (get_at(target, path) != value())
        throw unprocessable(fmt::format("testing value {} failed: test failed", path));
    } else {
      throw errors::bad_request(fmt::format("Unexpected kind: {}", name));
    }
  }
  // Added values nest under their path: the result may nest deeper than any body kube-sim reads.
  // The API server fails to decode it (its decoder's depth limit) and answers 422 Invalid on
  // "patch" with the patched object (patch.go, applyPatchToCurrentObject).
  if (nesting_depth(target) > kMaxNestingDepth) {
    throw errors::invalid(
        "", "", "",
        {{"FieldValueInvalid", "patch",
          fmt::format("Invalid value: \"{}\": exceeded max depth", json::serialize(target))}});
  }
  return target;
}

json::value strategic_merge_patch(json::value target, const json::value& patch,
                                  std::string_view kind) {
  if (!patch.is_object())
    throw errors::bad_request("a strategic merge patch must be a JSON object");
  std::vector<std::string> path;
  return strategic(std::move(target), patch, kind, path);
}

}  // namespace rg::sim
