// The table-driven protobuf decoder: walks the wire fields of a message, looks each number up in
// its MessageSpec and writes the JSON value the Kubernetes JSON encoding would have.
#include "client/protobuf/decoder.hpp"

#include <fmt/format.h>
#include <boost/json.hpp>

#include <chrono>

#include "client/config/base64.hpp"
#include "client/model/utf8.hpp"
#include "client/protobuf/wire_reader.hpp"

namespace rg::client::protobuf {
namespace {

namespace json = boost::json;
using K = FieldKind;

std::string_view wire_name(WireType type) {
  switch (type) {
    case WireType::kVarint:
      return "varint";
    case WireType::kFixed64:
      return "fixed64";
    case WireType::kLength:
      return "length-delimited";
    case WireType::kFixed32:
      return "fixed32";
  }
  return "unknown";
}

void expect(const WireField& f, WireType type) {
  if (f.type != type) {
    throw ProtobufError(
        fmt::format("field {} is {}, expected {}", f.number, wire_name(f.type), wire_name(type)),
        f.offset);
  }
}

/// RFC 3339 in UTC with seconds, as metav1.Time marshals to JSON.
std::string format_time(std::int64_t seconds, std::size_t offset) {
  using namespace std::chrono;
  // Years 0001..9999 only, like Go's RFC 3339 formatting.
  constexpr std::int64_t kMin = -62135596800, kMax = 253402300799;
  if (seconds < kMin || seconds > kMax) {
    throw ProtobufError(fmt::format("time {} seconds is outside the years 1-9999", seconds),
                        offset);
  }
  sys_seconds t{std::chrono::seconds(seconds)};
  auto days = floor<std::chrono::days>(t);
  year_month_day date{days};
  hh_mm_ss clock{t - days};
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", static_cast<int>(date.year()),
                     static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()),
                     clock.hours().count(), clock.minutes().count(), clock.seconds().count());
}

/// A JSON string of `s` as Go's encoding/json writes it: invalid UTF-8 bytes become U+FFFD.
json::string utf8_string(std::string_view s) {
  json::string out;
  out.reserve(s.size());
  while (!s.empty()) {
    std::size_t n = utf8_sequence(s);
    if (n == 0) {
      out.append("\xEF\xBF\xBD");
      n = 1;
    } else {
      out.append(s.substr(0, n));
    }
    s.remove_prefix(n);
  }
  return out;
}

/// Reads a small embedded message of known shape (Time, Quantity, IntOrString, map entries):
/// calls `on(field)` for each field.
template <class OnField>
void for_each_field(std::string_view bytes, std::size_t base, OnField&& on) {
  WireReader reader(bytes, base);
  WireField f;
  while (reader.next(f)) on(f);
}

std::size_t offset_of(std::string_view inner, std::string_view outer, std::size_t outer_base) {
  return outer_base + static_cast<std::size_t>(inner.data() - outer.data());
}

class Decoder {
 public:
  /// `bytes` starts at `base` within the body.
  void decode(std::string_view bytes, std::size_t base, const MessageSpec& spec,
              json::object& out) const {
    WireReader reader(bytes, base);
    WireField f;
    while (reader.next(f)) {
      const FieldSpec* field = spec.find(f.number);
      if (field == nullptr) continue;  // unknown field: skipped (already bounds-checked)
      std::size_t inner = f.type == WireType::kLength ? offset_of(f.bytes, bytes, base) : 0;
      try {
        decode_field(f, inner, *field, out);
      } catch (const ProtobufError& e) {
        if (field->kind == K::kInline) throw;  // JSON has no level for an inlined struct
        throw e.within(std::string(field->json_name));
      }
    }
  }

 private:
  void decode_field(const WireField& f, std::size_t inner, const FieldSpec& field,
                    json::object& out) const {
    switch (field.kind) {
      case K::kInline:
        expect(f, WireType::kLength);
        decode(f.bytes, inner, *field.message, out);
        return;
      case K::kStringMap:
      case K::kBytesMap:
      case K::kQuantityMap:
        decode_map_entry(f, inner, field, out);
        return;
      default:
        break;
    }
    bool repeated = (field.flags & kRepeated) != 0;
    if (field.kind == K::kMessage) {
      expect(f, WireType::kLength);
      if (repeated) {
        json::array& list = array_at(out, field.json_name);
        json::object& element = list.emplace_back(json::object()).as_object();
        try {
          decode(f.bytes, inner, *field.message, element);
        } catch (const ProtobufError& e) {
          throw e.within(fmt::format("[{}]", list.size() - 1));
        }
        return;
      }
      // A repeated occurrence of a singular message merges into the first, as in protobuf.
      json::value& slot = out[field.json_name];
      if (!slot.is_object()) slot = json::object();
      decode(f.bytes, inner, *field.message, slot.as_object());
      return;
    }
    json::value value = scalar_value(f, inner, field.kind);
    bool keep = !value.is_null() && ((field.flags & kEmitZero) != 0 || !is_zero(value));
    if (repeated) {
      array_at(out, field.json_name).push_back(std::move(value));
    } else if (keep) {
      out[field.json_name] = std::move(value);
    } else {
      out.erase(field.json_name);  // last occurrence wins, even a zero one
    }
  }

  static bool is_zero(const json::value& v) {
    if (v.is_string()) return v.get_string().empty();
    if (v.is_int64()) return v.get_int64() == 0;
    if (v.is_bool()) return !v.get_bool();
    return false;
  }

  static json::array& array_at(json::object& out, std::string_view key) {
    json::value& slot = out[key];
    if (!slot.is_array()) slot = json::array();
    return slot.as_array();
  }

  static json::value varint_value(std::uint64_t raw, K kind) {
    switch (kind) {
      case K::kBool:
        return raw != 0;
      case K::kInt32:
        return static_cast<std::int64_t>(static_cast<std::int32_t>(raw));
      default:
        return static_cast<std::int64_t>(raw);
    }
  }

  /// The JSON value of a scalar-like field; null for an empty Time (Go's zero time, omitted).
  json::value scalar_value(const WireField& f, std::size_t inner, K kind) const {
    switch (kind) {
      case K::kString:
        expect(f, WireType::kLength);
        return utf8_string(f.bytes);
      case K::kBytes:
        expect(f, WireType::kLength);
        return json::string(base64_encode(f.bytes));
      case K::kBool:
      case K::kInt32:
      case K::kInt64:
        expect(f, WireType::kVarint);
        return varint_value(f.value, kind);
      case K::kTime:
        return time_value(f, inner);
      case K::kQuantity:
        return quantity_value(f, inner);
      case K::kIntOrString:
        return int_or_string_value(f, inner);
      case K::kRawJson:
        return raw_json_value(f, inner);
      default:
        throw ProtobufError("internal: unexpected field kind", f.offset);
    }
  }

  static json::value time_value(const WireField& f, std::size_t inner) {
    expect(f, WireType::kLength);
    if (f.bytes.empty()) return nullptr;
    std::int64_t seconds = 0;
    for_each_field(f.bytes, inner, [&](const WireField& t) {
      if (t.number == 1) {
        expect(t, WireType::kVarint);
        seconds = static_cast<std::int64_t>(t.value);
      }
    });
    return json::string(format_time(seconds, f.offset));
  }

  static json::value quantity_value(const WireField& f, std::size_t inner) {
    expect(f, WireType::kLength);
    std::string text;
    for_each_field(f.bytes, inner, [&](const WireField& q) {
      if (q.number == 1) {
        expect(q, WireType::kLength);
        text = q.bytes;
      }
    });
    return json::string(text.empty() ? "0" : text);
  }

  static json::value int_or_string_value(const WireField& f, std::size_t inner) {
    expect(f, WireType::kLength);
    std::uint64_t type = 0;
    std::int64_t int_value = 0;
    std::string_view str_value;
    for_each_field(f.bytes, inner, [&](const WireField& v) {
      if (v.number == 1) {
        expect(v, WireType::kVarint);
        type = v.value;
      } else if (v.number == 2) {
        expect(v, WireType::kVarint);
        int_value = static_cast<std::int32_t>(v.value);
      } else if (v.number == 3) {
        expect(v, WireType::kLength);
        str_value = v.bytes;
      }
    });
    if (type == 1) return utf8_string(str_value);
    if (type != 0) {
      throw ProtobufError(
          fmt::format("IntOrString type {} is neither 0 (int) nor 1 (string)", type), f.offset);
    }
    return int_value;
  }

  static json::value raw_json_value(const WireField& f, std::size_t inner) {
    expect(f, WireType::kLength);
    // RawExtension and FieldsV1 hold their JSON in field 1.
    std::string_view raw;
    for_each_field(f.bytes, inner, [&](const WireField& r) {
      if (r.number == 1) {
        expect(r, WireType::kLength);
        raw = r.bytes;
      }
    });
    if (raw.empty()) return nullptr;
    boost::system::error_code ec;
    json::value parsed = json::parse(raw, ec);
    if (ec) throw ProtobufError("embedded JSON is invalid: " + ec.message(), f.offset);
    return parsed;
  }

  void decode_map_entry(const WireField& f, std::size_t inner, const FieldSpec& field,
                        json::object& out) const {
    expect(f, WireType::kLength);
    json::string key;
    json::value value = field.kind == K::kQuantityMap ? json::value("0") : json::value("");
    for_each_field(f.bytes, inner, [&](const WireField& e) {
      if (e.number == 1) {
        expect(e, WireType::kLength);
        key = utf8_string(e.bytes);
      } else if (e.number == 2) {
        std::size_t at = e.type == WireType::kLength ? offset_of(e.bytes, f.bytes, inner) : 0;
        K kind = field.kind == K::kStringMap  ? K::kString
                 : field.kind == K::kBytesMap ? K::kBytes
                                              : K::kQuantity;
        value = scalar_value(e, at, kind);
      }
    });
    json::value& slot = out[field.json_name];
    if (!slot.is_object()) slot = json::object();
    slot.as_object()[key] = std::move(value);
  }
};

struct KnownKind {
  std::string_view group_version;  ///< empty: any (DeleteOptions is in every group)
  std::string_view kind;
  const MessageSpec* spec;
};

const KnownKind kKnownKinds[] = {
    {"", "DeleteOptions", &kDeleteOptions},
    {"v1", "Secret", &kSecret},
    {"v1", "ConfigMap", &kConfigMap},
    {"v1", "Namespace", &kNamespace},
    {"v1", "ServiceAccount", &kServiceAccount},
    {"v1", "Pod", &kPod},
    {"apps/v1", "Deployment", &kDeployment},
    {"authentication.k8s.io/v1", "TokenRequest", &kTokenRequest},
    {"authentication.k8s.io/v1", "TokenReview", &kTokenReview},
    {"authentication.k8s.io/v1", "SelfSubjectReview", &kSelfSubjectReview},
    {"authorization.k8s.io/v1", "SubjectAccessReview", &kSubjectAccessReview},
    {"authorization.k8s.io/v1", "SelfSubjectAccessReview", &kSelfSubjectAccessReview},
    {"authorization.k8s.io/v1", "SelfSubjectRulesReview", &kSelfSubjectRulesReview},
    {"policy/v1", "Eviction", &kEviction},
    {"policy/v1", "PodDisruptionBudget", &kPodDisruptionBudget},
    {"autoscaling/v2", "HorizontalPodAutoscaler", &kHorizontalPodAutoscalerV2},
    {"autoscaling/v1", "HorizontalPodAutoscaler", &kHorizontalPodAutoscalerV1},
    {"v1", "Service", &kService},
    {"rbac.authorization.k8s.io/v1", "Role", &kRole},
    {"rbac.authorization.k8s.io/v1", "ClusterRole", &kClusterRole},
    {"rbac.authorization.k8s.io/v1", "RoleBinding", &kRoleBinding},
    {"rbac.authorization.k8s.io/v1", "ClusterRoleBinding", &kClusterRoleBinding},
};

}  // namespace

Envelope decode_envelope(std::string_view body) {
  if (!body.starts_with(kMagic)) {
    throw ProtobufError(
        "not a Kubernetes protobuf body: it must start with the 4 bytes \"k8s\\x00\"", 0);
  }
  Envelope envelope;
  std::string_view message = body.substr(kMagic.size());
  WireReader reader(message, kMagic.size());
  WireField f;
  bool has_raw = false;
  while (reader.next(f)) {
    if (f.number == 1) {
      expect(f, WireType::kLength);
      for_each_field(f.bytes, offset_of(f.bytes, body, 0), [&](const WireField& t) {
        if (t.number == 1 || t.number == 2) {
          expect(t, WireType::kLength);
          (t.number == 1 ? envelope.api_version : envelope.kind) = t.bytes;
        }
      });
    } else if (f.number == 2) {
      expect(f, WireType::kLength);
      envelope.raw = f.bytes;
      has_raw = true;
    } else if (f.number == 3 || f.number == 4) {
      expect(f, WireType::kLength);
      (f.number == 3 ? envelope.content_encoding : envelope.content_type) = f.bytes;
    }
  }
  if (envelope.kind.empty()) throw ProtobufError("the envelope has no kind (typeMeta.kind)", 4);
  if (!has_raw) envelope.raw = {};
  return envelope;
}

const MessageSpec* find_schema(std::string_view api_version, std::string_view kind) {
  for (const auto& known : kKnownKinds) {
    if (known.kind == kind && (known.group_version.empty() || known.group_version == api_version)) {
      return known.spec;
    }
  }
  return nullptr;
}

json::object decode_message(std::string_view bytes, const MessageSpec& spec) {
  json::object out;
  Decoder().decode(bytes, 0, spec, out);
  return out;
}

json::object decode_object(std::string_view body) {
  Envelope envelope = decode_envelope(body);
  if (!envelope.content_encoding.empty()) {
    throw ProtobufError(
        fmt::format("content encoding \"{}\" is not supported", envelope.content_encoding), 4);
  }
  const MessageSpec* spec = find_schema(envelope.api_version, envelope.kind);
  if (spec == nullptr) {
    throw ProtobufError(fmt::format("no protobuf schema for {} {}; send it as application/json",
                                    envelope.api_version, envelope.kind),
                        4);
  }
  json::object out;
  out["apiVersion"] = envelope.api_version;
  out["kind"] = envelope.kind;
  std::size_t raw_offset = envelope.raw.empty() ? 0 : offset_of(envelope.raw, body, 0);
  try {
    Decoder().decode(envelope.raw, raw_offset, *spec, out);
  } catch (const ProtobufError& e) {
    throw e.within(envelope.kind);
  }
  return out;
}

}  // namespace rg::client::protobuf
