// projection_memory_bench: heap bytes per cached custom resource, kept as the dynamic informer
// decodes it (Unstructured), as Unstructured without managedFields (drop_managed_fields), and
// projected (informer/projection.hpp) into a user struct carrying a full ObjectMeta or LeanMeta.
// The object is a realistic custom resource as a kubectl-applied, controller-updated object looks:
// labels, the last-applied-configuration annotation, two managedFields entries, a spec with a pod
// template-like body and a status with conditions.
//
// Bytes are counted by replacing the global operator new/delete: the allocator's usable size of
// every live block (glibc's malloc_usable_size; its 8-byte chunk headers are not included), so
// the figures are what the cache holds, control blocks and rounding included. Each figure is
// the increase of live bytes over N objects, divided by N. Deterministic: no timing involved.
//
// Usage: projection_memory_bench [objects]   (default 2000)
#include <malloc.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "client/model/compact_string.hpp"
#include "client/model/unstructured.hpp"
#include "client/watch/list_decoder.hpp"
#include "informer/dynamic_informer_factory.hpp"
#include "informer/lean_meta.hpp"
#include "informer/projection.hpp"

namespace {
std::atomic<std::int64_t> live_bytes{0};
std::atomic<std::int64_t> live_blocks{0};
}  // namespace

void* operator new(std::size_t size) {
  void* p = std::malloc(size == 0 ? 1 : size);
  if (p == nullptr) throw std::bad_alloc();
  live_bytes.fetch_add(static_cast<std::int64_t>(malloc_usable_size(p)), std::memory_order_relaxed);
  live_blocks.fetch_add(1, std::memory_order_relaxed);
  return p;
}
void operator delete(void* p) noexcept {
  if (p == nullptr) return;
  live_bytes.fetch_sub(static_cast<std::int64_t>(malloc_usable_size(p)), std::memory_order_relaxed);
  live_blocks.fetch_sub(1, std::memory_order_relaxed);
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept { operator delete(p); }

namespace {

using rg::client::CompactString;
using rg::client::ObjectMeta;
using rg::client::Unstructured;
using namespace rg::informer;

// What a program reading replicas, image and readiness keeps, with each kind of metadata.
struct WidgetWithObjectMeta {
  ObjectMeta metadata;
  std::int64_t replicas = 0;
  std::int64_t ready_replicas = 0;
  CompactString image;
};
struct LeanWidget : LeanMeta {
  std::int64_t replicas = 0;
  std::int64_t ready_replicas = 0;
  CompactString image;
};

std::int64_t integer_at(const Unstructured& object, const char* section, const char* field) {
  return object.object().at(section).at(field).to_number<std::int64_t>();
}
std::string_view image_of(const Unstructured& object) {
  return object.object()
      .at("spec")
      .at("template")
      .at("spec")
      .at("containers")
      .at(0)
      .at("image")
      .as_string();
}

WidgetWithObjectMeta with_object_meta(const Unstructured& object) {
  return {object.metadata(), integer_at(object, "spec", "replicas"),
          integer_at(object, "status", "readyReplicas"), image_of(object)};
}
LeanWidget lean(const Unstructured& object) {
  return {LeanMeta(object), integer_at(object, "spec", "replicas"),
          integer_at(object, "status", "readyReplicas"), image_of(object)};
}

// One custom resource as the API server returns it (i varies the name, uid and version).
std::string widget_json(int i) {
  const std::string name = "checkout-frontend-" + std::to_string(i);
  const std::string spec =
      R"({"replicas":3,"selector":{"matchLabels":{"app":"checkout","tier":"frontend"}},)"
      R"("template":{"metadata":{"labels":{"app":"checkout","tier":"frontend"}},"spec":{)"
      R"("containers":[{"name":"web","image":"registry.example.com/shop/checkout:1.42.0",)"
      R"("ports":[{"name":"http","containerPort":8080}],"env":[{"name":"LOG_LEVEL","value":"info"},)"
      R"({"name":"CART_URL","value":"http://cart.shop.svc:8080"},{"name":"REGION","value":"eu-west-1"}],)"
      R"("resources":{"requests":{"cpu":"250m","memory":"256Mi"},"limits":{"cpu":"1","memory":"512Mi"}},)"
      R"("readinessProbe":{"httpGet":{"path":"/healthz","port":8080},"periodSeconds":5}}]}},)"
      R"("strategy":{"type":"RollingUpdate","maxSurge":"25%","maxUnavailable":0}})";
  std::string last_applied =
      R"({"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":")" + name +
      R"(","namespace":"shop"},"spec":)" + spec + "}";
  std::string escaped;
  for (char c : last_applied) {
    if (c == '"') escaped += '\\';
    escaped += c;
  }
  return R"({"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":")" + name +
         R"(","namespace":"shop","uid":"6f1c2a4e-93b1-4c57-9a0e-)" +
         std::to_string(100000000000 + i) + R"(","resourceVersion":")" +
         std::to_string(5000000 + i) +
         R"(","generation":4,"creationTimestamp":"2026-11-30T09:12:44Z",)"
         R"("labels":{"app":"checkout","tier":"frontend","team":"payments","env":"prod"},)"
         R"("annotations":{"kubectl.kubernetes.io/last-applied-configuration":")" +
         escaped +
         R"("},"managedFields":[{"manager":"kubectl-client-side-apply","operation":"Update",)"
         R"("apiVersion":"example.com/v1","time":"2026-11-30T09:12:44Z","fieldsType":"FieldsV1",)"
         R"("fieldsV1":{"f:metadata":{"f:annotations":{".":{},"f:kubectl.kubernetes.io/last-applied-configuration":{}},)"
         R"("f:labels":{".":{},"f:app":{},"f:env":{},"f:team":{},"f:tier":{}}},"f:spec":{".":{},"f:replicas":{},)"
         R"("f:selector":{},"f:strategy":{".":{},"f:maxSurge":{},"f:maxUnavailable":{},"f:type":{}},"f:template":{}}}},)"
         R"({"manager":"widget-controller","operation":"Update","apiVersion":"example.com/v1",)"
         R"("time":"2026-12-01T17:03:10Z","fieldsType":"FieldsV1","subresource":"status",)"
         R"("fieldsV1":{"f:status":{".":{},"f:conditions":{},"f:observedGeneration":{},"f:readyReplicas":{},"f:replicas":{}}}}]},)"
         R"("spec":)" +
         spec +
         R"(,"status":{"observedGeneration":4,"replicas":3,"readyReplicas":3,"conditions":[)"
         R"({"type":"Available","status":"True","lastTransitionTime":"2026-12-01T17:03:10Z","reason":"MinimumReplicasAvailable","message":"Widget has minimum availability."},)"
         R"({"type":"Progressing","status":"True","lastTransitionTime":"2026-11-30T09:12:44Z","reason":"NewReplicaSetAvailable","message":"Widget checkout-frontend has successfully progressed."},)"
         R"({"type":"Degraded","status":"False","lastTransitionTime":"2026-11-30T09:12:44Z","reason":"AsExpected","message":""}]}})";
}

// Decodes `n` widgets as the informer does (a LIST body through ListDecoder<Unstructured>).
std::vector<std::shared_ptr<const Unstructured>> decode(int n, std::size_t& body_bytes) {
  std::string body =
      R"({"apiVersion":"example.com/v1","kind":"WidgetList","metadata":{"resourceVersion":"9"},"items":[)";
  for (int i = 0; i < n; ++i) {
    if (i != 0) body += ',';
    body += widget_json(i);
  }
  body += "]}";
  body_bytes = body.size();
  std::vector<std::shared_ptr<const Unstructured>> items;
  items.reserve(static_cast<std::size_t>(n));
  rg::client::ListDecoder<Unstructured> decoder;
  decoder.feed(body, items);
  decoder.finish();
  return items;
}

struct Figure {
  double bytes;
  double blocks;
};

// Live bytes and blocks per object that `keep` adds while its result is alive.
template <class Keep>
Figure measure(int n, Keep keep) {
  const std::int64_t bytes = live_bytes.load();
  const std::int64_t blocks = live_blocks.load();
  auto kept = keep();
  const Figure figure{static_cast<double>(live_bytes.load() - bytes) / n,
                      static_cast<double>(live_blocks.load() - blocks) / n};
  return figure;
}

template <class T>
std::vector<std::shared_ptr<const T>> project_all(
    const std::vector<std::shared_ptr<const Unstructured>>& wires,
    const ProjectFunc<T, Unstructured>& project) {
  std::vector<std::shared_ptr<const T>> out;
  out.reserve(wires.size());
  for (const auto& wire : wires) {
    Projected<T> projected = project_object(project, *wire);
    if (!projected.object) {
      std::fprintf(stderr, "projection failed: %s\n", projected.error.c_str());
      std::exit(1);
    }
    out.push_back(std::move(projected.object));
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 2000;
  if (n <= 0) {
    std::fprintf(stderr, "usage: projection_memory_bench [objects > 0]\n");
    return 2;
  }
  std::size_t body_bytes = 0;
  const Figure unstructured = measure(n, [&] { return decode(n, body_bytes); });
  const auto wires = decode(n, body_bytes);
  const Figure trimmed = measure(n, [&] {
    std::vector<std::shared_ptr<const Unstructured>> out;
    for (const auto& wire : wires) out.push_back(drop_managed_fields(wire));
    return out;
  });
  const Figure full_meta =
      measure(n, [&] { return project_all<WidgetWithObjectMeta>(wires, with_object_meta); });
  const Figure lean_meta = measure(n, [&] { return project_all<LeanWidget>(wires, lean); });

  std::printf("%d widgets, %.0f bytes of JSON each\n", n, static_cast<double>(body_bytes) / n);
  std::printf("%-48s %12s %8s\n", "cached as", "bytes/obj", "blocks");
  const auto row = [](const char* what, Figure f) {
    std::printf("%-48s %12.0f %8.1f\n", what, f.bytes, f.blocks);
  };
  row("Unstructured (as decoded)", unstructured);
  row("Unstructured without managedFields", trimmed);
  row("projection: ObjectMeta + 3 fields", full_meta);
  row("projection: LeanMeta + 3 fields", lean_meta);
  return 0;
}
