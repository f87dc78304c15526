// The /metrics body (see metrics_text.hpp).
#include "operator/metrics_text.hpp"

#include <prometheus/text_serializer.h>

#include <iterator>

#include "operator/process_collector.hpp"

namespace rg::op {

namespace {

void append(std::vector<prometheus::MetricFamily>& families,
            std::vector<prometheus::MetricFamily> more) {
  families.insert(families.end(), std::make_move_iterator(more.begin()),
                  std::make_move_iterator(more.end()));
}

}  // namespace

std::string metrics_text(const prometheus::Registry& registry,
                         const std::vector<std::shared_ptr<prometheus::Collectable>>& more) {
  std::vector<prometheus::MetricFamily> families = registry.Collect();
  for (const auto& collectable : more) append(families, collectable->Collect());
  append(families, ProcessCollector().Collect());
  return prometheus::TextSerializer().Serialize(families);
}

}  // namespace rg::op
