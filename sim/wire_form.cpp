// Bringing objects into the wire form encoding/json writes, from the wire-type table.
#include "sim/wire_form.hpp"

#include <boost/json.hpp>

#include <algorithm>

namespace rg::sim {
namespace {

namespace json = boost::json;
using wire::Shape;
using wire::Tag;

const wire::Field* find_field(const wire::Type& type, std::string_view name) {
  auto it =
      std::lower_bound(type.fields.begin(), type.fields.end(), name,
                       [](const wire::Field& field, std::string_view n) { return field.name < n; });
  return it != type.fields.end() && it->name == name ? &*it : nullptr;
}

bool is_zero_number(const json::value& value) {
  if (value.is_int64()) return value.get_int64() == 0;
  if (value.is_uint64()) return value.get_uint64() == 0;
  return value.is_double() && value.get_double() == 0;
}

// Structs (also those with their own MarshalJSON): omitempty has no effect on them.
bool is_struct(Shape shape) {
  return shape == Shape::kStruct || shape == Shape::kTime || shape == Shape::kDuration ||
         shape == Shape::kRaw || shape == Shape::kQuantity || shape == Shape::kIntOrString;
}

// Whether encoding/json writes the field when it holds its zero value (also: when the JSON
// it was decoded from left it out).
bool written_when_zero(const wire::Field& field) {
  return field.tag == Tag::kNone || (field.tag == Tag::kOmitEmpty && is_struct(field.shape));
}

// Whether omitempty (or omitzero: only the zero time uses it) drops this value.
bool empty(Shape shape, const json::value& value) {
  switch (shape) {
    case Shape::kString:
      return value.is_string() && value.get_string().empty();
    case Shape::kNumber:
      return is_zero_number(value);
    case Shape::kBool:
      return value.is_bool() && !value.get_bool();
    case Shape::kSlice:  // []byte is a base64 string
      return value.is_null() || (value.is_array() && value.get_array().empty()) ||
             (value.is_string() && value.get_string().empty());
    case Shape::kMap:
      return value.is_null() || (value.is_object() && value.get_object().empty());
    default:  // pointers, the zero time
      return value.is_null();
  }
}

bool omitted(const wire::Field& field, const json::value& value) {
  return !written_when_zero(field) && empty(field.shape, value);
}

class Normalizer {
 public:
  explicit Normalizer(std::vector<std::string>* changes) : changes_(changes) {}

  void object(const wire::Type& type, json::object& object) {
    for (auto it = object.begin(); it != object.end();) {
      const auto* field = find_field(type, it->key());
      if (field == nullptr) {
        ++it;
        continue;
      }
      Path path(*this, it->key());
      value(*field, it->value());
      if (omitted(*field, it->value())) {
        note(field->tag == Tag::kOmitZero ? "zero, left out (omitzero)"
                                          : "empty, left out (omitempty)");
        it = object.stable_erase(it);
      } else {
        ++it;
      }
    }
    for (const auto& field : type.fields) {
      if (!written_when_zero(field) || object.contains(field.name)) continue;
      Path path(*this, field.name);
      auto& added = object[field.name];
      zero(field, added);
      note("absent, written " + json::serialize(added));
    }
  }

 private:
  // Appends a key to the path of the change being described (only when describing).
  class Path {
   public:
    Path(Normalizer& owner, std::string_view key) : owner_(owner) {
      if (owner_.changes_ == nullptr) return;
      size_ = owner_.path_.size();
      if (!owner_.path_.empty()) owner_.path_ += '.';
      owner_.path_ += key;
    }
    ~Path() {
      if (owner_.changes_ != nullptr) owner_.path_.resize(size_);
    }
    Path(const Path&) = delete;
    Path& operator=(const Path&) = delete;

   private:
    Normalizer& owner_;
    std::size_t size_ = 0;
  };

  void note(const std::string& what) {
    if (changes_ != nullptr) changes_->push_back(path_ + ": " + what);
  }

  const wire::Type& element(const wire::Field& field) const {
    return wire::types[static_cast<std::size_t>(field.element)];
  }

  // The zero value of a field's Go type as encoding/json writes it.
  void zero(const wire::Field& field, json::value& out) {
    switch (field.shape) {
      case Shape::kString:
        out = "";
        break;
      case Shape::kNumber:
      case Shape::kIntOrString:
        out = 0;
        break;
      case Shape::kBool:
        out = false;
        break;
      case Shape::kStruct:
        object(element(field), out.emplace_object());
        break;
      case Shape::kDuration:
        out = "0s";
        break;
      case Shape::kQuantity:
        out = "0";
        break;
      default:  // pointers, slices, maps, the zero time, raw JSON
        out = nullptr;
    }
  }

  // A present value: null where Go has a zero value becomes that value; structs inside are
  // normalised.
  void value(const wire::Field& field, json::value& value) {
    if (value.is_null()) {
      switch (field.shape) {
        case Shape::kPointer:
        case Shape::kSlice:
        case Shape::kMap:
        case Shape::kTime:
        case Shape::kRaw:
          return;
        default:
          zero(field, value);
          note("null, written " + json::serialize(value));
          return;
      }
    }
    if (field.element < 0) return;
    const auto& type = element(field);
    if (auto* object = value.if_object();
        object != nullptr && (field.shape == Shape::kStruct || field.shape == Shape::kPointer)) {
      this->object(type, *object);
    } else if (auto* array = value.if_array(); array != nullptr && field.shape == Shape::kSlice) {
      for (std::size_t i = 0; i < array->size(); ++i)
        if (auto* item = (*array)[i].if_object()) {
          Path path(*this, changes_ != nullptr ? std::to_string(i) : std::string());
          this->object(type, *item);
        }
    } else if (object != nullptr && field.shape == Shape::kMap) {
      for (auto& entry : *object)
        if (auto* item = entry.value().if_object()) {
          Path path(*this, entry.key());
          this->object(type, *item);
        }
    }
  }

  std::vector<std::string>* changes_;
  std::string path_;
};

}  // namespace

const wire::Type* wire_type(std::string_view group, std::string_view version,
                            std::string_view kind) {
  for (const auto& root : wire::roots)
    if (root.kind == kind && root.version == version && root.group == group)
      return &wire::types[static_cast<std::size_t>(root.type)];
  return nullptr;
}

void to_wire_form(const wire::Type& type, json::object& object, std::vector<std::string>* changes) {
  Normalizer(changes).object(type, object);
}

std::vector<std::string> wire_form_violations(const json::object& object,
                                              std::string_view api_version, std::string_view kind) {
  auto string_of = [&](std::string_view key) -> std::string_view {
    const auto* value = object.if_contains(key);
    return value != nullptr && value->is_string() ? std::string_view(value->get_string())
                                                  : std::string_view();
  };
  if (api_version.empty()) api_version = string_of("apiVersion");
  if (kind.empty()) kind = string_of("kind");
  const auto slash = api_version.find('/');
  const auto* type =
      slash == std::string_view::npos
          ? wire_type("", api_version, kind)
          : wire_type(api_version.substr(0, slash), api_version.substr(slash + 1), kind);
  std::vector<std::string> changes;
  if (type == nullptr) return changes;
  json::object copy = object;
  to_wire_form(*type, copy, &changes);
  return changes;
}

}  // namespace rg::sim
