// AdminRoutes: the Server's table of admin endpoints under /sim/ that someone outside the
// server library serves -- e.g. /sim/kubelets, which kube-sim's main and the test fixtures wire
// to the simulated Cluster (the Server cannot depend on the cluster library). A route is a
// path prefix and a synchronous handler; requests to it pass authentication and authorization
// like /sim/faults and are never affected by injected faults. Thread-safe.
#pragma once

#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "sim/http_types.hpp"

namespace rg::sim {

class AdminRoutes {
 public:
  /// Answers a request whose path starts with the route's prefix; throws ApiError for a
  /// Status answer (400, 404, ...).
  using Handler = std::function<HttpResponse(const HttpRequest&)>;

  /// Serves `prefix` (e.g. "/sim/kubelets": that path and everything below it) with
  /// `handler`, replacing a route of the same prefix.
  void route(std::string prefix, Handler handler);
  /// The answer of the route the request's path belongs to, or nullopt when none.
  std::optional<HttpResponse> serve(const HttpRequest& request) const;

 private:
  struct Route {
    std::string prefix;
    Handler handler;
  };
  mutable std::mutex mutex_;
  std::vector<Route> routes_;
};

}  // namespace rg::sim
