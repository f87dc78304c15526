// AdminRoutes (see admin_routes.hpp).
#include "sim/admin_routes.hpp"

#include <algorithm>

namespace rg::sim {

void AdminRoutes::route(std::string prefix, Handler handler) {
  std::lock_guard lock(mutex_);
  std::erase_if(routes_, [&](const Route& route) { return route.prefix == prefix; });
  routes_.push_back({std::move(prefix), std::move(handler)});
}

std::optional<HttpResponse> AdminRoutes::serve(const HttpRequest& request) const {
  Handler handler;
  {
    std::lock_guard lock(mutex_);
    for (const auto& route : routes_) {
      const std::string_view path = request.path;
      if (path.starts_with(route.prefix) &&
          (path.size() == route.prefix.size() || path[route.prefix.size()] == '/')) {
        handler = route.handler;
        break;
      }
    }
  }
  if (!handler) return std::nullopt;
  return handler(request);
}

}  // namespace rg::sim
