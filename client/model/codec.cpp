// decode_struct and encode_struct: the non-template halves of decode<T> and to_json.
#include "client/model/codec.hpp"

#include <boost/json.hpp>

#include "client/model/json_reader.hpp"
#include "client/model/schema.hpp"
#include "client/model/struct_sink.hpp"

namespace rg::client::detail {
namespace {

[[noreturn]] void rethrow_for(const StructDesc& schema, const DecodeError& error) {
  throw DecodeError("decoding " + std::string(schema.type_name) + ": " + error.what());
}

boost::json::array strings_to_json(const std::vector<std::string>& strings) {
  boost::json::array out;
  out.reserve(strings.size());
  for (const auto& s : strings) out.emplace_back(s);
  return out;
}

// Adds the field's JSON to `out` unless it is empty.
void encode_field(const FieldDesc& field, const void* object, boost::json::object& out) {
  // The encoder only reads: member() is shared with the decoder, hence the const_cast.
  const void* member = field.member(const_cast<void*>(object));
  switch (field.kind) {
    case FieldKind::kString:
      if (const auto& s = *static_cast<const std::string*>(member); !s.empty()) out[field.key] = s;
      return;
    case FieldKind::kOptString:
      if (const auto& s = *static_cast<const std::optional<std::string>*>(member))
        out[field.key] = *s;
      return;
    case FieldKind::kCompact: {
      // An Interned<CompactString> hands out the string it holds.
      const void* text = field.element != nullptr ? field.element(member, 0) : member;
      if (const auto& s = *static_cast<const CompactString*>(text); !s.empty())
        out[field.key] = s.view();
      return;
    }
    case FieldKind::kShort:
      if (const auto& s = *static_cast<const ShortString*>(member); !s.empty())
        out[field.key] = s.view();
      return;
    case FieldKind::kTime:
      if (const auto& t = *static_cast<const WallTime*>(member); t != WallTime{})
        out[field.key] = format_time(t);
      return;
    case FieldKind::kOptTime:
      if (const auto& t = *static_cast<const std::optional<WallTime>*>(member))
        out[field.key] = format_time(*t);
      return;
    case FieldKind::kInt64:
      out[field.key] = *static_cast<const std::int64_t*>(member);
      return;
    case FieldKind::kOptInt64:
      if (const auto& i = *static_cast<const std::optional<std::int64_t>*>(member))
        out[field.key] = *i;
      return;
    case FieldKind::kInt32:
      out[field.key] = *static_cast<const std::int32_t*>(member);
      return;
    case FieldKind::kOptInt32:
      if (const auto& i = *static_cast<const std::optional<std::int32_t>*>(member))
        out[field.key] = *i;
      return;
    case FieldKind::kBool:
      out[field.key] = *static_cast<const bool*>(member);
      return;
    case FieldKind::kOptBool:
      if (const auto& b = *static_cast<const std::optional<bool>*>(member)) out[field.key] = *b;
      return;
    case FieldKind::kStruct:
      if (auto nested = encode_struct(field.child(), member); !nested.empty()) {
        out[field.key] = std::move(nested);
      }
      return;
    case FieldKind::kOptStruct:
      if (const void* value = field.element(member, 0)) {
        out[field.key] = encode_struct(field.child(), value);
      }
      return;
    case FieldKind::kStringMap: {
      const auto& map = *static_cast<const Labels*>(field.element(member, 0));
      if (map.empty()) return;
      boost::json::object entries;
      entries.reserve(map.size());
      for (const auto& [key, value] : map) entries[key] = value;
      out[field.key] = std::move(entries);
      return;
    }
    case FieldKind::kStringList: {
      // An Interned list hands out the std::vector it holds.
      const void* held = field.element != nullptr ? field.element(member, 0) : member;
      if (const auto& list = *static_cast<const std::vector<std::string>*>(held); !list.empty()) {
        out[field.key] = strings_to_json(list);
      }
      return;
    }
    case FieldKind::kStructList: {
      boost::json::array elements;
      for (std::size_t i = 0; const void* element = field.element(member, i); ++i) {
        elements.emplace_back(encode_struct(field.child(), element));
      }
      if (!elements.empty()) out[field.key] = std::move(elements);
      return;
    }
  }
}

}  // namespace

void decode_struct(const StructDesc& schema, void* target, std::string_view json) {
  const auto sink = make_struct_sink(schema);
  sink->start(target);
  JsonReader reader(*sink);
  try {
    reader.write_whole(json);
  } catch (const DecodeError& error) {
    rethrow_for(schema, error);
  }
}

void decode_struct(const StructDesc& schema, void* target, const boost::json::value& json) {
  const auto sink = make_struct_sink(schema);
  sink->start(target);
  if (!replay(json, *sink)) rethrow_for(schema, DecodeError(sink->error().describe()));
}

boost::json::object encode_struct(const StructDesc& schema, const void* object) {
  boost::json::object out;
  if (!schema.api_version.empty()) out["apiVersion"] = schema.api_version;
  if (!schema.kind.empty()) out["kind"] = schema.kind;
  for (const auto& field : schema.fields) encode_field(field, object, out);
  return out;
}

}  // namespace rg::client::detail
