// /readyz rendering (see readiness.hpp).
#include "operator/readiness.hpp"

#include <sstream>

namespace rg::op {

HttpReply render_readyz(const ReadinessState& state, std::string_view query) {
  std::ostringstream body;
  bool ready = state.synced;
  if (state.permission_problem) {
    ready = false;
    body << "[-]permissions failed: " << *state.permission_problem << '\n';
  } else if (state.permission_check_skipped) {
    body << "[+]permissions skipped: the SelfSubjectAccessReviews failed ("
         << *state.permission_check_skipped << ")\n";
  }
  for (const auto& result : state.informers) {
    if (result.synced) {
      body << "[+]informer-" << result.name << " ok\n";
    } else {
      ready = false;
      body << "[-]informer-" << result.name << " failed: not synced";
      if (!result.message.empty()) body << " (" << result.message << ")";
      body << '\n';
    }
  }
  body << (ready ? "readyz check passed\n" : "readyz check failed\n");
  const bool verbose = query.find("verbose") != std::string_view::npos;
  return {ready ? 200U : 500U, "text/plain; charset=utf-8", ready && !verbose ? "ok" : body.str()};
}

}  // namespace rg::op
