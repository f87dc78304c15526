// The wire-type table: how encoding/json writes each Go type of k8s.io/api that kube-sim stores
// -- every field's JSON name, Go shape and omitempty/omitzero tag. The table itself
// (wire_types_table.cpp) is generated from the Go sources by sim/gen_wire_types.py.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace rg::sim::wire {

/// A field's Go type, as far as encoding/json cares.
enum class Shape : std::uint8_t {
  kString,       ///< string and named string types; zero ""
  kNumber,       ///< ints and floats; zero 0
  kBool,         ///< zero false
  kStruct,       ///< a struct value: always written (omitempty has no effect), zero {}
  kPointer,      ///< *T: nil is null
  kSlice,        ///< []T ([]byte too): nil is null
  kMap,          ///< map[K]V: nil is null
  kTime,         ///< metav1.Time, MicroTime (a struct): the zero time is written null
  kDuration,     ///< metav1.Duration: zero "0s"
  kRaw,          ///< runtime.RawExtension, metav1.FieldsV1: nil is null
  kQuantity,     ///< resource.Quantity (a struct): zero "0"
  kIntOrString,  ///< intstr.IntOrString (a struct): zero 0
};

/// The json tag's option.
enum class Tag : std::uint8_t {
  kNone,       ///< always written, with its zero value when unset
  kOmitEmpty,  ///< dropped when false, 0, "", nil or an empty slice or map
  kOmitZero,   ///< dropped when the zero value (omitzero, Go 1.24)
};

struct Field {
  std::string_view name;  ///< the JSON name
  Shape shape;
  Tag tag;
  /// For a struct, a pointer to one, or a slice or map of them: the index of that struct in
  /// `types`; else -1.
  std::int16_t element;
};

struct Type {
  std::string_view name;          ///< "core/v1.NodeSystemInfo"
  std::span<const Field> fields;  ///< sorted by name
};

/// A stored kind and its Go type.
struct Root {
  std::string_view group;
  std::string_view version;
  std::string_view kind;
  int type;  ///< index in `types`
};

extern const std::span<const Type> types;
extern const std::span<const Root> roots;

}  // namespace rg::sim::wire
