// Query parameter decoders (see query_params.hpp).
#include "sim/query_params.hpp"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "sim/api_error.hpp"

namespace rg::sim {
namespace {

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

}  // namespace

std::optional<bool> codec_optional_bool(const HttpRequest& request, std::string_view name) {
  const auto value = request.param(name);
  if (!value) return std::nullopt;
  return !(*value == "0" || equals_ignoring_case(*value, "false"));
}

bool codec_bool(const HttpRequest& request, std::string_view name) {
  return codec_optional_bool(request, name).value_or(false);
}

bool dry_run_param(const HttpRequest& request, std::string_view options_kind) {
  std::vector<std::string_view> values;
  for (const auto& [key, value] : request.query)
    if (key == "dryRun") values.emplace_back(value);
  return dry_run_values(values, options_kind);
}

bool dry_run_values(const std::vector<std::string_view>& values, std::string_view options_kind) {
  bool all = !values.empty();
  for (auto value : values) all = all && value == "All";
  if (values.empty() || all) return all;
  // field.NotSupported of a []string: the value is printed with %#v.
  std::string printed = "[]string{";
  for (std::size_t i = 0; i < values.size(); ++i)
    printed += fmt::format("{}\"{}\"", i == 0 ? "" : ", ", values[i]);
  printed += "}";
  throw errors::invalid(
      "meta.k8s.io", options_kind, "",
      {{"FieldValueNotSupported", "dryRun",
        fmt::format("Unsupported value: {}: supported values: \"All\"", printed)}});
}

}  // namespace rg::sim
