// process_* metrics (CPU time, memory, file descriptors, start time) read from /proc/self at
// scrape time, with the names and meanings of Prometheus' standard process collector.
#pragma once

#include <prometheus/collectable.h>

#include <string>
#include <vector>

namespace rg::op {

class ProcessCollector final : public prometheus::Collectable {
 public:
  /// `proc_self` is the folder to read (a test may point it at a fake one).
  explicit ProcessCollector(std::string proc_self = "/proc/self");
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  std::string proc_self_;
};

}  // namespace rg::op
