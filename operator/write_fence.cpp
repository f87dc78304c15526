// WriteFence (see write_fence.hpp).
#include "operator/write_fence.hpp"

#include "operator/logging.hpp"

namespace rg::op {

namespace {

// The path without its query.
std::string_view path_of(std::string_view target) { return target.substr(0, target.find('?')); }

}  // namespace

WriteFence::WriteFence(std::function<bool()> leading, std::string lease_path,
                       prometheus::Registry& registry)
    : leading_(std::move(leading)),
      lease_path_(std::move(lease_path)),
      lease_collection_(lease_path_.substr(0, lease_path_.rfind('/'))),
      stopped_(prometheus::BuildCounter()
                   .Name("replica_guard_fenced_writes_total")
                   .Help("Writes stopped before they left the operator because this replica "
                         "no longer led (its leader-election renew deadline had passed)")
                   .Register(registry)
                   .Add({})) {}

bool WriteFence::fenced(std::string_view method, std::string_view target) const {
  if (method == "GET" || method == "HEAD") return false;
  const std::string_view path = path_of(target);
  if (path == lease_path_ || (method == "POST" && path == lease_collection_)) return false;
  return !path.starts_with("/apis/authorization.k8s.io/");
}

void WriteFence::check(const client::HttpRequest& request) {
  if (!fenced(request.method, request.target) || leading_()) return;
  stopped_.Increment();
  log(spdlog::level::warn, "not the leader any more: write stopped before it left",
      {{"method", request.method}, {"target", request.target}});
  throw FencedWrite("write stopped: this replica no longer leads (" + request.method + " " +
                    request.target + ")");
}

}  // namespace rg::op
