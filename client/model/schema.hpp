// Schemas of the typed projections: for each struct, a constant table from JSON key to member,
// built at compile time from member pointers. The streaming decoder (struct_sink.cpp) and the
// encoder (codec.cpp) walk these tables, so a projection is declared once, in its .cpp file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "client/labels/labels.hpp"
#include "client/model/boxed.hpp"
#include "client/model/compact_string.hpp"
#include "client/model/interned.hpp"
#include "client/model/schema_fwd.hpp"
#include "client/model/short_string.hpp"
#include "client/model/time.hpp"

namespace rg::client::detail {

/// How a member is read from and written to JSON.
enum class FieldKind : std::uint8_t {
  kString,      ///< std::string
  kOptString,   ///< std::optional<std::string>
  kCompact,     ///< CompactString or Interned<CompactString>
  kShort,       ///< ShortString
  kTime,        ///< WallTime (metav1.Time: RFC 3339 to the second; the epoch = unset)
  kOptTime,     ///< std::optional<WallTime>
  kInt64,       ///< std::int64_t
  kOptInt64,    ///< std::optional<std::int64_t>
  kInt32,       ///< std::int32_t
  kOptInt32,    ///< std::optional<std::int32_t>
  kBool,        ///< bool
  kOptBool,     ///< std::optional<bool>
  kStruct,      ///< a struct with its own schema
  kOptStruct,   ///< std::optional or Boxed of such a struct
  kStringMap,   ///< Labels or Interned<Labels> (a JSON object of strings)
  kStringList,  ///< std::vector<std::string> or Interned of one
  kStructList,  ///< std::vector (or Interned std::vector) of a struct with its own schema
};

/// One JSON key of a struct.
struct FieldDesc {
  std::string_view key;
  FieldKind kind;
  bool required;
  void* (*member)(void* object);   ///< the member inside its parent object
  const StructDesc& (*child)();    ///< kStruct, kOptStruct, kStructList: the nested schema
  void* (*emplace)(void* member);  ///< kOptStruct, kStructList: makes a new nested object
  /// kOptStruct, kStructList: the i-th nested object (an engaged optional has one), or nullptr;
  /// kStringMap: the Labels (i = 0); kCompact and kStringList, when Interned only: the
  /// CompactString or the std::vector it holds (i = 0).
  const void* (*element)(const void* member, std::size_t i);
  /// Interned members only (null otherwise): the decoder fills a scratch value -- `scratch`
  /// makes it in `holder` on first use and hands it out cleared -- and `intern` stores it.
  void* (*scratch)(std::shared_ptr<void>& holder);
  void (*intern)(void* member, const void* scratch);
};

/// The schema of one struct: its fields, and for top-level kinds the apiVersion and kind the
/// encoder writes.
struct StructDesc {
  constexpr StructDesc(std::string_view type_name, std::span<const FieldDesc> fields,
                       std::string_view api_version = {}, std::string_view kind = {})
      : type_name(type_name), fields(fields), api_version(api_version), kind(kind) {
    for (std::size_t i = 0; i < fields.size() && i < 64; ++i) {
      if (fields[i].required) required_mask |= std::uint64_t{1} << i;
    }
  }

  /// The field for a JSON key, or nullptr when the key is not kept.
  const FieldDesc* find(std::string_view key) const noexcept {
    for (const auto& field : fields) {
      if (field.key == key) return &field;
    }
    return nullptr;
  }

  std::string_view type_name;
  std::span<const FieldDesc> fields;
  std::string_view api_version;
  std::string_view kind;
  /// Bit i is set when fields[i] is required (only the first 64 fields can be required).
  std::uint64_t required_mask = 0;
};

template <class T>
struct IsOptional : std::false_type {};
template <class T>
struct IsOptional<std::optional<T>> : std::true_type {};
template <class T>
struct IsOptional<Boxed<T>> : std::true_type {};
template <class T>
struct IsVector : std::false_type {};
template <class T>
struct IsVector<std::vector<T>> : std::true_type {};
template <class T>
struct IsVector<Interned<std::vector<T>>> : std::true_type {};
template <class T>
struct IsInterned : std::false_type {};
template <class T>
struct IsInterned<Interned<T>> : std::true_type {};

/// The type a member holds: T for Interned<T>, the member's own type otherwise.
template <class M>
struct HeldType {
  using type = M;
};
template <class T>
struct HeldType<Interned<T>> {
  using type = T;
};

template <class M>
constexpr FieldKind kind_of() {
  if constexpr (std::is_same_v<M, std::string>)
    return FieldKind::kString;
  else if constexpr (std::is_same_v<M, std::optional<std::string>>)
    return FieldKind::kOptString;
  else if constexpr (std::is_same_v<M, CompactString> || std::is_same_v<M, Interned<CompactString>>)
    return FieldKind::kCompact;
  else if constexpr (std::is_same_v<M, ShortString>)
    return FieldKind::kShort;
  else if constexpr (std::is_same_v<M, WallTime>)
    return FieldKind::kTime;
  else if constexpr (std::is_same_v<M, std::optional<WallTime>>)
    return FieldKind::kOptTime;
  else if constexpr (std::is_same_v<M, std::int64_t>)
    return FieldKind::kInt64;
  else if constexpr (std::is_same_v<M, std::optional<std::int64_t>>)
    return FieldKind::kOptInt64;
  else if constexpr (std::is_same_v<M, std::int32_t>)
    return FieldKind::kInt32;
  else if constexpr (std::is_same_v<M, std::optional<std::int32_t>>)
    return FieldKind::kOptInt32;
  else if constexpr (std::is_same_v<M, bool>)
    return FieldKind::kBool;
  else if constexpr (std::is_same_v<M, std::optional<bool>>)
    return FieldKind::kOptBool;
  else if constexpr (std::is_same_v<M, Labels> || std::is_same_v<M, Interned<Labels>>)
    return FieldKind::kStringMap;
  else if constexpr (std::is_same_v<M, std::vector<std::string>> ||
                     std::is_same_v<M, Interned<std::vector<std::string>>>)
    return FieldKind::kStringList;
  else if constexpr (IsOptional<M>::value)
    return FieldKind::kOptStruct;
  else if constexpr (IsVector<M>::value)
    return FieldKind::kStructList;
  else
    return FieldKind::kStruct;
}

template <class MemberPtr>
struct MemberTraits;
template <class C, class M>
struct MemberTraits<M C::*> {
  using Class = C;
  using Member = M;
};

template <auto Member>
void* member_of(void* object) {
  using Class = typename MemberTraits<decltype(Member)>::Class;
  return &(static_cast<Class*>(object)->*Member);
}

template <class S>
const StructDesc& schema_ref() {
  return schema_of(Tag<S>{});
}

template <class Optional>
void* emplace_optional(void* member) {
  return &static_cast<Optional*>(member)->emplace();
}

template <class S>
void* emplace_back(void* member) {
  return &static_cast<std::vector<S>*>(member)->emplace_back();
}

template <class Optional>
const void* optional_element(const void* member, std::size_t i) {
  const auto& optional = *static_cast<const Optional*>(member);
  return i == 0 && optional ? &*optional : nullptr;
}

template <class M, class S>
const void* vector_element(const void* member, std::size_t i) {
  const std::vector<S>& vector = *static_cast<const M*>(member);
  return i < vector.size() ? &vector[i] : nullptr;
}

/// A map, list or string member: the value it holds (itself, or what its Interned holds).
template <class M>
const void* held_element(const void* member, std::size_t) {
  const typename HeldType<M>::type& held = *static_cast<const M*>(member);
  return &held;
}

template <class T>
void* make_scratch(std::shared_ptr<void>& holder) {
  if (!holder) holder = std::make_shared<T>();
  auto* scratch = static_cast<T*>(holder.get());
  scratch->clear();
  return scratch;
}

/// Stores a decoded value into an Interned member. A LIST returns objects in key order, so the
/// pods of one ReplicaSet arrive one after another with equal labels, ownerReferences and
/// generateName: the value this thread interned last for the type is compared first and, when
/// equal, shared without the pool's lock and hash lookup. (It keeps that one value per type and
/// thread alive until the thread interns another or exits.)
template <class T>
void intern_scratch(void* member, const void* scratch) {
  const T& value = *static_cast<const T*>(scratch);
  thread_local Interned<T> last;
  if (!(last.get() == value)) last = Interned<T>(value);
  *static_cast<Interned<T>*>(member) = last;
}

/// The schema entry mapping JSON `key` to `Member` (a pointer to data member).
template <auto Member>
constexpr FieldDesc field(std::string_view key, bool required = false) {
  using M = typename MemberTraits<decltype(Member)>::Member;
  constexpr FieldKind kind = kind_of<M>();
  FieldDesc desc{key,     kind,    required, &member_of<Member>, nullptr, nullptr,
                 nullptr, nullptr, nullptr};
  if constexpr (kind == FieldKind::kStruct) {
    desc.child = &schema_ref<M>;
  } else if constexpr (kind == FieldKind::kOptStruct || kind == FieldKind::kStructList) {
    using S = typename HeldType<M>::type::value_type;
    desc.child = &schema_ref<S>;
    if constexpr (kind == FieldKind::kOptStruct) {
      desc.emplace = &emplace_optional<M>;
      desc.element = &optional_element<M>;
    } else {
      desc.emplace = &emplace_back<S>;
      desc.element = &vector_element<M, S>;
    }
  } else if constexpr (kind == FieldKind::kStringMap) {
    desc.element = &held_element<M>;
  } else if constexpr ((kind == FieldKind::kCompact || kind == FieldKind::kStringList) &&
                       IsInterned<M>::value) {
    desc.element = &held_element<M>;
  }
  if constexpr (IsInterned<M>::value) {
    desc.scratch = &make_scratch<typename M::value_type>;
    desc.intern = &intern_scratch<typename M::value_type>;
  }
  return desc;
}

/// field<Member>() with the nested schema given: for a member whose type has more than one
/// projection (ObjectMeta with or without managedFields).
template <auto Member, const StructDesc& (*Child)()>
constexpr FieldDesc field(std::string_view key, bool required = false) {
  FieldDesc desc = field<Member>(key, required);
  desc.child = Child;
  return desc;
}

}  // namespace rg::client::detail

namespace rg::client {

/// Public, for declaring typed custom resources (see schema_fwd.hpp).
using detail::field;
using detail::FieldDesc;

}  // namespace rg::client
