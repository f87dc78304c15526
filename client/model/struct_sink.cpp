// StructSink: the schema-driven streaming decoder behind every typed projection. A stack of
// frames follows the nesting of kept fields; for a key the schema does not keep, the driver is
// asked to skip the value, so its events never arrive here.
#include "client/model/struct_sink.hpp"

#include <cmath>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "client/model/schema.hpp"

namespace rg::client::detail {
namespace {

std::string_view expected_of(FieldKind kind) {
  switch (kind) {
    case FieldKind::kString:
    case FieldKind::kOptString:
    case FieldKind::kCompact:
    case FieldKind::kShort:
      return "string";
    case FieldKind::kTime:
    case FieldKind::kOptTime:
      return "RFC 3339 timestamp";
    case FieldKind::kInt64:
    case FieldKind::kOptInt64:
    case FieldKind::kInt32:
    case FieldKind::kOptInt32:
      return "integer";
    case FieldKind::kBool:
    case FieldKind::kOptBool:
      return "boolean";
    case FieldKind::kStruct:
    case FieldKind::kOptStruct:
    case FieldKind::kStringMap:
      return "object";
    case FieldKind::kStringList:
    case FieldKind::kStructList:
      return "array";
  }
  return "value";
}

class StructSink final : public ValueSink {
 public:
  explicit StructSink(const StructDesc& schema) : schema_(schema) { stack_.reserve(16); }

  void start(void* target) override {
    target_ = target;
    stack_.clear();
    field_ = nullptr;
    slot_ = nullptr;
  }

  bool object_begin() override {
    if (stack_.empty()) {
      push(FieldKind::kStruct, nullptr, &schema_, target_);
      return true;
    }
    Frame& top = stack_.back();
    if (top.kind == FieldKind::kStructList) {
      ++top.index;
      push(FieldKind::kStruct, nullptr, top.desc, top.field->emplace(top.target));
      return true;
    }
    if (top.kind != FieldKind::kStruct) return mismatch(JsonType::kObject);
    const FieldDesc& field = *field_;
    switch (field.kind) {
      case FieldKind::kStruct:
        push(FieldKind::kStruct, &field, &field.child(), slot_);
        return true;
      case FieldKind::kOptStruct:
        push(FieldKind::kStruct, &field, &field.child(), field.emplace(slot_));
        return true;
      case FieldKind::kStringMap:
        if (field.intern != nullptr) {
          push(FieldKind::kStringMap, &field, nullptr, scratch_for(field), slot_);
        } else {
          static_cast<Labels*>(slot_)->clear();
          push(FieldKind::kStringMap, &field, nullptr, slot_);
        }
        return true;
      default:
        return mismatch(JsonType::kObject);
    }
  }

  bool object_end(std::size_t) override {
    const Frame& top = stack_.back();
    if (top.kind == FieldKind::kStruct &&
        (top.seen & top.desc->required_mask) != top.desc->required_mask) {
      return missing_required(top);
    }
    pop();
    return true;
  }

  bool array_begin() override {
    if (stack_.empty() || stack_.back().kind != FieldKind::kStruct) {
      return mismatch(JsonType::kArray);
    }
    const FieldDesc& field = *field_;
    if (field.kind == FieldKind::kStringList) {
      if (field.intern != nullptr) {
        push(FieldKind::kStringList, &field, nullptr, scratch_for(field), slot_);
      } else {
        static_cast<std::vector<std::string>*>(slot_)->clear();
        push(FieldKind::kStringList, &field, nullptr, slot_);
      }
      return true;
    }
    if (field.kind == FieldKind::kStructList) {
      if (field.intern != nullptr) {
        push(FieldKind::kStructList, &field, &field.child(), scratch_for(field), slot_);
        return true;
      }
      // Every kStructList member is a std::vector; clearing needs its element type, which only
      // the schema knows, so a fresh target is assumed (decoders always start from T{}).
      push(FieldKind::kStructList, &field, &field.child(), slot_);
      return true;
    }
    return mismatch(JsonType::kArray);
  }

  bool array_end(std::size_t) override {
    pop();
    return true;
  }

  bool key(std::string_view key) override {
    Frame& top = stack_.back();
    if (top.kind == FieldKind::kStringMap) {
      map_key_.assign(key);
      return true;
    }
    const FieldDesc* field = top.desc->find(key);
    if (field == nullptr) {
      skip_next_value();
      return true;
    }
    field_ = field;
    slot_ = field->member(top.target);
    if (field->required) {
      const auto index = static_cast<std::size_t>(field - top.desc->fields.data());
      if (index < 64) top.seen |= std::uint64_t{1} << index;
    }
    return true;
  }

  bool string(std::string_view value) override {
    if (stack_.empty()) return mismatch(JsonType::kString);
    Frame& top = stack_.back();
    switch (top.kind) {
      case FieldKind::kStruct:
        if (field_->kind == FieldKind::kString) {
          static_cast<std::string*>(slot_)->assign(value);
          return true;
        }
        if (field_->kind == FieldKind::kCompact) {
          if (field_->intern != nullptr) {
            auto* scratch = static_cast<CompactString*>(scratch_for(*field_));
            scratch->assign(value);
            field_->intern(slot_, scratch);
          } else {
            static_cast<CompactString*>(slot_)->assign(value);
          }
          return true;
        }
        if (field_->kind == FieldKind::kShort) {
          static_cast<ShortString*>(slot_)->assign(value);
          return true;
        }
        if (field_->kind == FieldKind::kTime || field_->kind == FieldKind::kOptTime) {
          return timestamp(value);
        }
        if (field_->kind == FieldKind::kOptString) {
          static_cast<std::optional<std::string>*>(slot_)->emplace(value);
          return true;
        }
        return mismatch(JsonType::kString);
      case FieldKind::kStringMap:
        put_entry(*static_cast<Labels*>(top.target), value);
        return true;
      case FieldKind::kStringList:
        static_cast<std::vector<std::string>*>(top.target)->emplace_back(value);
        ++top.index;
        return true;
      default:
        return mismatch(JsonType::kString);
    }
  }

  bool int64(std::int64_t value) override { return integer(value, true); }

  bool uint64(std::uint64_t value) override {
    const bool fits = value <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    return integer(fits ? static_cast<std::int64_t>(value) : 0, fits);
  }

  bool float64(double value) override {
    // Integral doubles (1e3, 2.0) are accepted for integer fields, as Go's decoder does for
    // numbers it can represent exactly.
    const bool fits = std::trunc(value) == value && value >= -9.2e18 && value <= 9.2e18;
    return integer(fits ? static_cast<std::int64_t>(value) : 0, fits);
  }

  bool boolean(bool value) override {
    if (stack_.empty() || stack_.back().kind != FieldKind::kStruct) {
      return mismatch(JsonType::kBoolean);
    }
    if (field_->kind == FieldKind::kBool) {
      *static_cast<bool*>(slot_) = value;
      return true;
    }
    if (field_->kind == FieldKind::kOptBool) {
      *static_cast<std::optional<bool>*>(slot_) = value;
      return true;
    }
    return mismatch(JsonType::kBoolean);
  }

  // null leaves a field at its zero value (as Go does): optionals empty, maps and lists empty.
  bool null() override {
    if (stack_.empty()) return mismatch(JsonType::kNull);
    Frame& top = stack_.back();
    switch (top.kind) {
      case FieldKind::kStruct:
        reset_slot();
        return true;
      case FieldKind::kStringMap:
        put_entry(*static_cast<Labels*>(top.target), {});
        return true;
      case FieldKind::kStringList:
        static_cast<std::vector<std::string>*>(top.target)->emplace_back();
        ++top.index;
        return true;
      default:
        top.field->emplace(top.target);
        ++top.index;
        return true;
    }
  }

  const SinkError& error() const override { return error_; }

 private:
  struct Frame {
    FieldKind kind;          // kStruct, kStringMap, kStringList or kStructList
    const FieldDesc* field;  // the field holding this value; nullptr at the root and for elements
    const StructDesc* desc;  // kStruct: its schema; kStructList: the elements' schema
    void* target;            // the struct, map or vector being filled
    void* interned;          // an Interned member `target` (a scratch value) goes to, or nullptr
    std::size_t index;       // lists: elements begun so far
    std::uint64_t seen;      // kStruct: required fields seen
  };

  void push(FieldKind kind, const FieldDesc* field, const StructDesc* desc, void* target,
            void* interned = nullptr) {
    stack_.push_back(Frame{kind, field, desc, target, interned, 0, 0});
  }

  // A finished map or list that fills an Interned member is interned into it.
  void pop() {
    const Frame& top = stack_.back();
    if (top.interned != nullptr) top.field->intern(top.interned, top.target);
    stack_.pop_back();
  }

  // The scratch value of an interned field, cleared. (One per field: a struct holding an
  // interned list of itself would need one per depth.)
  void* scratch_for(const FieldDesc& field) {
    for (auto& [owner, holder] : scratches_) {
      if (owner == &field) return field.scratch(holder);
    }
    return field.scratch(scratches_.emplace_back(&field, nullptr).second);
  }

  // Go's encoder writes map keys sorted, so entries normally append at the end.
  void put_entry(Labels& map, std::string_view value) {
    if (map.empty() || map.rbegin()->first < map_key_) {
      map.emplace_hint(map.end(), map_key_, value);
    } else {
      map.insert_or_assign(map_key_, std::string(value));
    }
  }

  // metav1.Time: RFC 3339; an empty string leaves the field unset, as null does.
  bool timestamp(std::string_view text) {
    std::optional<WallTime> parsed;
    if (!text.empty()) {
      parsed = parse_rfc3339(text);
      if (!parsed) {
        return fail(path(true),
                    "expected an RFC 3339 timestamp (\"2026-11-29T14:00:00Z\"), got \"" +
                        std::string(text) + "\"");
      }
    }
    if (field_->kind == FieldKind::kTime) {
      *static_cast<WallTime*>(slot_) = parsed.value_or(WallTime{});
    } else {
      *static_cast<std::optional<WallTime>*>(slot_) = parsed;
    }
    return true;
  }

  bool integer(std::int64_t value, bool fits) {
    if (stack_.empty() || stack_.back().kind != FieldKind::kStruct) {
      return mismatch(JsonType::kNumber);
    }
    switch (field_->kind) {
      case FieldKind::kInt64:
      case FieldKind::kOptInt64:
        if (!fits)
          return fail(path(true),
                      "expected integer, got a number out of int64 range or with a fraction");
        if (field_->kind == FieldKind::kInt64) {
          *static_cast<std::int64_t*>(slot_) = value;
        } else {
          *static_cast<std::optional<std::int64_t>*>(slot_) = value;
        }
        return true;
      case FieldKind::kInt32:
      case FieldKind::kOptInt32:
        if (!fits || value < std::numeric_limits<std::int32_t>::min() ||
            value > std::numeric_limits<std::int32_t>::max()) {
          return fail(path(true),
                      "expected integer, got a number out of int32 range or with a fraction");
        }
        if (field_->kind == FieldKind::kInt32) {
          *static_cast<std::int32_t*>(slot_) = static_cast<std::int32_t>(value);
        } else {
          *static_cast<std::optional<std::int32_t>*>(slot_) = static_cast<std::int32_t>(value);
        }
        return true;
      default:
        return mismatch(JsonType::kNumber);
    }
  }

  void reset_slot() {
    switch (field_->kind) {
      case FieldKind::kOptString:
        static_cast<std::optional<std::string>*>(slot_)->reset();
        break;
      case FieldKind::kOptTime:
        static_cast<std::optional<WallTime>*>(slot_)->reset();
        break;
      case FieldKind::kOptInt64:
        static_cast<std::optional<std::int64_t>*>(slot_)->reset();
        break;
      case FieldKind::kOptInt32:
        static_cast<std::optional<std::int32_t>*>(slot_)->reset();
        break;
      case FieldKind::kOptBool:
        static_cast<std::optional<bool>*>(slot_)->reset();
        break;
      case FieldKind::kStringMap:
      case FieldKind::kStringList:
        if (field_->intern != nullptr) {
          field_->intern(slot_, scratch_for(*field_));
        } else if (field_->kind == FieldKind::kStringMap) {
          static_cast<Labels*>(slot_)->clear();
        } else {
          static_cast<std::vector<std::string>*>(slot_)->clear();
        }
        break;
      default:  // plain strings, numbers, structs and struct lists keep their zero value
        break;
    }
  }

  bool mismatch(JsonType got) {
    std::string_view expected = "object";
    if (!stack_.empty()) {
      const Frame& top = stack_.back();
      if (top.kind == FieldKind::kStruct) {
        expected = expected_of(field_->kind);
      } else if (top.kind != FieldKind::kStructList) {
        expected = "string";
      }
    }
    std::string message = "expected ";
    message.append(expected).append(", got ").append(name_of(got));
    return fail(path(true), std::move(message));
  }

  bool missing_required(const Frame& frame) {
    for (std::size_t i = 0; i < frame.desc->fields.size() && i < 64; ++i) {
      const auto bit = std::uint64_t{1} << i;
      if ((frame.desc->required_mask & bit) != 0 && (frame.seen & bit) == 0) {
        std::string message = "missing required field \"";
        message.append(frame.desc->fields[i].key).append("\" (").append(frame.desc->type_name);
        message.append(" without it)");
        return fail(path(false), std::move(message));
      }
    }
    return true;
  }

  // The field path of the value being decoded; `with_pending` adds the field (or map key) the
  // next value belongs to.
  std::string path(bool with_pending) const {
    std::string out;
    for (std::size_t i = 0; i < stack_.size(); ++i) {
      const Frame& frame = stack_[i];
      if (frame.field != nullptr) {
        if (!out.empty()) out.push_back('.');
        out.append(frame.field->key);
      }
      if (frame.kind == FieldKind::kStringList || frame.kind == FieldKind::kStructList) {
        const bool inside_element = i + 1 < stack_.size();
        const std::size_t index = inside_element ? frame.index - 1 : frame.index;
        out.append("[").append(std::to_string(index)).append("]");
      }
    }
    if (with_pending && !stack_.empty()) {
      const Frame& top = stack_.back();
      if (top.kind == FieldKind::kStruct && field_ != nullptr) {
        if (!out.empty()) out.push_back('.');
        out.append(field_->key);
      } else if (top.kind == FieldKind::kStringMap) {
        out.append("[").append(map_key_).append("]");
      }
    }
    return out;
  }

  bool fail(std::string path, std::string message) {
    error_.path = std::move(path);
    error_.message = std::move(message);
    return false;
  }

  const StructDesc& schema_;
  void* target_ = nullptr;
  std::vector<Frame> stack_;
  const FieldDesc* field_ = nullptr;  // the field the next value belongs to
  void* slot_ = nullptr;              // that field's member
  std::string map_key_;
  std::vector<std::pair<const FieldDesc*, std::shared_ptr<void>>> scratches_;
  SinkError error_;
};

}  // namespace

std::unique_ptr<ValueSink> make_struct_sink(const StructDesc& schema) {
  return std::make_unique<StructSink>(schema);
}

}  // namespace rg::client::detail
