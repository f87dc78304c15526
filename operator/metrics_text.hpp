// The /metrics body: every metric family the operator keeps (its own registry, the workqueue's
// and the informers' collectables, and the process_* metrics read at scrape time) in the
// Prometheus text exposition format 0.0.4.
#pragma once

#include <prometheus/collectable.h>
#include <prometheus/registry.h>

#include <memory>
#include <string>
#include <vector>

namespace rg::op {

std::string metrics_text(const prometheus::Registry& registry,
                         const std::vector<std::shared_ptr<prometheus::Collectable>>& more);

}  // namespace rg::op
