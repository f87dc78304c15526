// ApiServer: routing and the single-object verbs (see api_server.hpp).
#include "sim/api_server.hpp"

#include <fmt/format.h>
#include <boost/json.hpp>

#include <algorithm>
#include <charconv>
#include <optional>

#include "sim/api_error.hpp"
#include "sim/apply/field_validation.hpp"
#include "sim/body.hpp"
#include "sim/eviction.hpp"
#include "sim/list_options.hpp"
#include "sim/object_encoder.hpp"
#include "sim/patch.hpp"
#include "sim/pretty_print.hpp"
#include "sim/query_params.hpp"
#include "sim/request_info.hpp"
#include "sim/responses.hpp"

namespace rg::sim {
namespace {

namespace json = boost::json;

bool allows(const std::vector<std::string>& verbs, std::string_view verb) {
  return std::find(verbs.begin(), verbs.end(), verb) != verbs.end();
}

std::string verb_method(std::string_view verb) {
  if (verb == "create") return "POST";
  if (verb == "update") return "PUT";
  if (verb == "patch") return "PATCH";
  if (verb == "delete" || verb == "deletecollection") return "DELETE";
  return "GET";
}

std::string_view options_kind(std::string_view verb) {
  if (verb == "create") return "CreateOptions";
  if (verb == "update") return "UpdateOptions";
  if (verb == "patch") return "PatchOptions";
  return "DeleteOptions";
}

WriteContext write_context(const HttpRequest& request, std::string_view verb) {
  WriteContext context;
  context.dry_run = dry_run_param(request, options_kind(verb));
  if (auto manager = request.param("fieldManager"))
    context.field_manager = std::string(*manager);
  else
    context.field_manager = manager_from_user_agent(request.header("user-agent"));
  return context;
}

std::int64_t integer_param(std::string_view name, std::string_view text) {
  std::int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size())
    throw errors::bad_request(fmt::format("{}: invalid integer \"{}\"", name, text));
  return value;
}

// The body's DeleteOptions over the query's.
void read_delete_options_body(const HttpRequest& request, DeleteOptions& options,
                              std::optional<bool>& orphan) {
  auto value = decode_body(request);
  if (!value.is_object())
    throw errors::bad_request("the request body must be a DeleteOptions object");
  read_delete_options(value.get_object(), options, orphan);
}

DeleteOptions delete_options(const HttpRequest& request) {
  DeleteOptions options;
  options.dry_run = dry_run_param(request, "DeleteOptions");
  std::optional<bool> orphan = codec_optional_bool(request, "orphanDependents");
  if (auto policy = request.param("propagationPolicy"))
    options.propagation_policy = std::string(*policy);
  if (auto grace = request.param("gracePeriodSeconds"))
    options.grace_period_seconds = integer_param("gracePeriodSeconds", *grace);
  if (!request.body.empty()) read_delete_options_body(request, options, orphan);
  // The deprecated orphanDependents (ValidateDeleteOptions; the store's shouldOrphanDependents).
  if (orphan && !options.propagation_policy.empty())
    throw errors::invalid(
        "meta.k8s.io", "DeleteOptions", "",
        {{"FieldValueInvalid", "propagationPolicy",
          fmt::format("Invalid value: \"{}\": orphanDependents and deletionPropagation cannot "
                      "be both set",
                      options.propagation_policy)}});
  if (orphan.value_or(false)) options.propagation_policy = "Orphan";
  return options;
}

// Warning headers (RFC 7234 299 warnings), as the API server's warning filter writes them.
void add_warnings(HttpResponse& response, const std::vector<std::string>& warnings) {
  for (const auto& warning : warnings) response.headers.emplace_back("Warning", warning);
}

std::string success_status(const ResourceType& type, const StoredObject& object) {
  client::Status status;
  status.status = "Success";
  status.details = client::StatusDetails{object.name, type.group, type.resource, object.uid, {}, 0};
  return json::serialize(client::to_json(status));
}

}  // namespace

ApiServer::ApiServer(Registry& registry, ApiServerOptions options, std::string server_address)
    : registry_(registry),
      options_(std::move(options)),
      server_address_(std::move(server_address)),
      discovery_(std::make_shared<Discovery>(registry.table(), options_.version, server_address_)),
      discovery_generation_(registry.served_generation()) {}

std::shared_ptr<const Discovery> ApiServer::discovery() {
  std::lock_guard lock(discovery_mutex_);
  const auto generation = registry_.served_generation();
  if (generation != discovery_generation_) {
    std::vector<ResourceType> served;
    for (const auto* type : registry_.served_types()) served.push_back(*type);
    const ResourceTable table(std::move(served));
    discovery_ = std::make_shared<Discovery>(table, options_.version, server_address_);
    discovery_generation_ = generation;
  }
  return discovery_;
}

boost::asio::awaitable<void> ApiServer::handle(HttpRequest& request, ResponseStream& out) {
  try {
    if (hook_ && co_await hook_(request, out)) co_return;
    // Pretty answers (?pretty, curl); watch streams never are (their serializer has no such
    // option).
    std::optional<PrettyStream> pretty;
    if (pretty_print(request) && parse_request_info(request).verb != "watch") pretty.emplace(out);
    ResponseStream& stream = pretty ? static_cast<ResponseStream&>(*pretty) : out;
    const auto discovery = this->discovery();
    if (auto response = discovery->serve(request)) {
      co_await stream.send(*response);
      co_return;
    }
    co_await handle_resource(request, stream);
  } catch (const ApiError& error) {
    // A rejected write (by the API or an injected fault) still left its client: record it.
    if (write_record_ != nullptr && request.method != "GET" && !request.path.starts_with("/sim/"))
      write_record_->rejected(request, error.code());
    throw;
  }
}

boost::asio::awaitable<void> ApiServer::handle_resource(HttpRequest& request,
                                                        ResponseStream& stream) {
  const RequestInfo info = parse_request_info(request);
  if (!info.is_resource_request) throw errors::path_not_found();
  const ResourceType* found = registry_.find(info.group, info.version, info.resource);
  if (found == nullptr) throw errors::path_not_found();
  const ResourceType& type = *found;
  const bool is_namespaces = type.group.empty() && type.resource == "namespaces";
  std::string ns = type.namespaced ? info.namespace_ : "";
  if (!type.namespaced && !info.namespace_.empty() && !is_namespaces)
    throw errors::path_not_found();
  const std::string& verb = info.verb;
  if (type.namespaced && ns.empty() && verb != "list" && verb != "watch")
    throw errors::path_not_found();
  const std::string& sub = info.subresource;
  const SubresourceType* subresource = sub.empty() ? nullptr : type.subresource(sub);
  if (!sub.empty() && subresource == nullptr) throw errors::path_not_found();
  const auto& verbs = subresource != nullptr ? subresource->verbs : type.verbs;
  if (!allows(verbs, verb)) throw errors::method_not_allowed(verb_method(verb), type);

  const Negotiation negotiation = negotiate(request);
  const bool writes = verb == "create" || verb == "update" || verb == "patch";
  const auto field_validation = writes
                                    ? apply::field_validation_from(request.param("fieldValidation"))
                                    : apply::FieldValidation::kIgnore;
  if (verb == "list") {
    co_await serve_list(registry_, type, ns, request, stream, negotiation);
    co_return;
  }
  if (verb == "watch") {
    co_await serve_watch(registry_, type, ns, request, stream, negotiation, options_.watch);
    co_return;
  }
  // `scale`: the result's Scale when the write built it already.
  auto reply = [&](int code, const StoredObject& object,
                   const json::object* scale = nullptr) -> HttpResponse {
    if (negotiation.table && sub.empty()) {
      auto encoder =
          make_table_encoder(type, negotiation.table_api_version, negotiation.include_object);
      ChunkBuilder chunk;
      chunk.add_owned(encoder->list_header(object.resource_version, "", std::nullopt));
      auto pinned = std::make_shared<StoredObject>(object);
      encoder->list_item(pinned, chunk);
      chunk.add(encoder->list_footer());
      return json_response(code, chunk.joined());
    }
    // (Not `scale != nullptr ? *scale : view_of(...)`: a conditional of an lvalue and a
    // temporary copies the lvalue.)
    if (sub == "scale" && scale != nullptr) return json_response(code, json::serialize(*scale));
    if (sub == "scale") return json_response(code, json::serialize(registry_.view_of(object, sub)));
    return json_response(code, object.typed_json());
  };

  if (verb == "get") {
    auto object = registry_.read(type, ns, info.name);
    HttpResponse response = reply(200, *object);
    co_await stream.send(response);
  } else if (verb == "create" && sub == "eviction") {
    auto eviction = parse_object_body(request, "Eviction", "policy/v1");
    auto status = evict(registry_, registry_.store(), ns, info.name, eviction,
                        dry_run_param(request, "CreateOptions"));
    const auto code = static_cast<unsigned>(status.at("code").as_int64());
    HttpResponse response = json_response(code, json::serialize(status));
    co_await stream.send(response);
  } else if (verb == "create" && sub == "binding") {
    auto binding = parse_object_body(request, "Binding", "v1");
    registry_.bind(ns, info.name, binding);
    client::Status status;
    status.status = "Success";
    status.code = 201;
    HttpResponse response = json_response(201, json::serialize(client::to_json(status)));
    co_await stream.send(response);
  } else if (verb == "create") {
    auto body = parse_object_body(request, type.kind, type.group_version());
    const auto warnings = apply::validate_fields(field_validation, type, body);
    auto object = registry_.create(type, ns, std::move(body), write_context(request, verb));
    if (write_record_ != nullptr) write_record_->written(request, *object, 201);
    HttpResponse response = reply(201, *object);
    add_warnings(response, warnings);
    co_await stream.send(response);
  } else if (verb == "update") {
    const bool scale = sub == "scale";
    auto body = parse_object_body(request, scale ? "Scale" : type.kind,
                                  scale ? "autoscaling/v1" : type.group_version());
    const auto warnings =
        scale ? std::vector<std::string>() : apply::validate_fields(field_validation, type, body);
    auto intent = [&](const json::object& /*current*/) { return body; };
    json::object scale_view;
    auto object = registry_.update(type, ns, info.name, sub, intent, write_context(request, verb),
                                   scale ? &scale_view : nullptr);
    if (write_record_ != nullptr) write_record_->written(request, *object, 200);
    HttpResponse response = reply(200, *object, scale ? &scale_view : nullptr);
    add_warnings(response, warnings);
    co_await stream.send(response);
  } else if (verb == "patch") {
    auto patch_kind = patch_type_from(request.header("content-type"));
    if (patch_kind == PatchType::kStrategic && type.custom)
      // Custom resources have no patch strategies: KAE customresource_handler.go serves only
      // JSON, merge and apply patches.
      throw errors::unsupported_media_type(
          "application/json-patch+json, application/merge-patch+json, "
          "application/apply-patch+yaml");
    if (patch_kind == PatchType::kApply) {
      auto configuration = parse_json_or_yaml(request.body);
      if (!configuration.is_object())
        throw errors::bad_request("an apply configuration must be an object");
      ApplyOptions options;
      options.field_manager = std::string(request.param("fieldManager").value_or(""));
      options.force = codec_bool(request, "force");
      options.dry_run = dry_run_param(request, "PatchOptions");
      const auto warnings =
          apply::validate_fields(field_validation, type, configuration.get_object());
      auto result =
          registry_.apply(type, ns, info.name, sub, std::move(configuration.get_object()), options);
      if (write_record_ != nullptr)
        write_record_->written(request, *result.object, result.created ? 201 : 200);
      HttpResponse response = reply(result.created ? 201 : 200, *result.object);
      add_warnings(response, warnings);
      co_await stream.send(response);
      co_return;
    }
    if (codec_optional_bool(request, "force"))
      throw errors::invalid("meta.k8s.io", "PatchOptions", "",
                            {{"FieldValueForbidden", "force",
                              "Forbidden: may not be specified for non-apply patch"}});
    const std::string kind = sub == "scale" ? "Scale" : type.kind;
    auto patched = [&](json::object current) -> json::value {
      // Decoded when applied to the object found (the store calls this once), as the API server
      // decodes a patch only in applyPatchToCurrentObject: a missing object is a 404 whatever
      // the body holds.
      const json::value patch = parse_json_or_yaml(request.body);
      switch (patch_kind) {
        case PatchType::kMerge:
          return merge_patch(std::move(current), patch);
        case PatchType::kJson:
          return json_patch(std::move(current), patch);
        default:
          return strategic_merge_patch(std::move(current), patch, kind);
      }
    };
    auto intent = [&](json::object current) -> json::object {
      // Initialized, not assigned: the result keeps the current object's memory (assigning to a
      // value of another memory resource copies it).
      json::value result = patched(std::move(current));
      if (!result.is_object()) throw errors::bad_request("the patch result is not an object");
      return std::move(result.get_object());
    };
    const bool scale = sub == "scale";
    json::object scale_view;
    auto object = registry_.update(type, ns, info.name, sub, intent, write_context(request, verb),
                                   scale ? &scale_view : nullptr);
    if (write_record_ != nullptr) write_record_->written(request, *object, 200);
    HttpResponse response = reply(200, *object, scale ? &scale_view : nullptr);
    co_await stream.send(response);
  } else if (verb == "delete") {
    auto result = registry_.remove(type, ns, info.name, delete_options(request));
    if (write_record_ != nullptr) write_record_->written(request, *result.object, 200);
    const bool return_object = !result.deleted || (type.group.empty() && type.resource == "pods");
    HttpResponse response = return_object
                                ? reply(200, *result.object)
                                : json_response(200, success_status(type, *result.object));
    co_await stream.send(response);
  } else if (verb == "deletecollection") {
    ListOptions list_options = parse_list_options(request, type, false);
    auto options = delete_options(request);
    auto encoder = make_json_encoder(type);
    ChunkBuilder chunk;
    chunk.add_owned(encoder->list_header(registry_.store().resource_version(), "", std::nullopt));
    bool first = true;
    const auto existing = registry_.store().list(type, ns);
    for (const auto& object : existing->items) {
      if (!list_options.selection.empty() && !list_options.selection.matches(*object)) continue;
      DeleteResult result;
      try {
        result = registry_.remove(type, object->namespace_, object->name, options);
      } catch (const ApiError& error) {
        if (error.code() == 404) continue;  // deleted meanwhile (a cascade)
        throw;
      }
      if (!first) chunk.add(",");
      first = false;
      encoder->list_item(result.object, chunk);
    }
    chunk.add(encoder->list_footer());
    HttpResponse response = json_response(200, chunk.joined());
    co_await stream.send(response);
  } else {
    throw errors::method_not_allowed(verb_method(verb), type);
  }
}

}  // namespace rg::sim
