// The event broadcaster's Prometheus series (see event_metrics.hpp).
#include "operator/event_metrics.hpp"

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>

#include <string>

namespace rg::op {

using client::EventDrop;
using client::EventWrite;

namespace {

constexpr std::array kDrops{EventDrop::kInvalid,          EventDrop::kQueueFull,
                            EventDrop::kSpamFilter,       EventDrop::kRejected,
                            EventDrop::kRetriesExhausted, EventDrop::kShutdown};

std::size_t index_of(EventDrop reason) { return static_cast<std::size_t>(reason); }
std::size_t index_of(EventWrite verb) { return static_cast<std::size_t>(verb); }

}  // namespace

EventMetrics::EventMetrics(prometheus::Registry& registry) {
  auto& written = prometheus::BuildCounter()
                      .Name("replica_guard_events_written_total")
                      .Help(
                          "Events the API server accepted, by verb (create, or patch of a "
                          "repeat's count)")
                      .Register(registry);
  written_[index_of(EventWrite::kCreate)] = &written.Add({{"verb", "create"}});
  written_[index_of(EventWrite::kPatch)] = &written.Add({{"verb", "patch"}});
  auto& dropped = prometheus::BuildCounter()
                      .Name("replica_guard_events_dropped_total")
                      .Help("Events recorded but never written, by reason")
                      .Register(registry);
  for (const EventDrop reason : kDrops) {
    dropped_[index_of(reason)] = &dropped.Add({{"reason", std::string(to_string(reason))}});
  }
  depth_ = &prometheus::BuildGauge()
                .Name("replica_guard_events_queue_depth")
                .Help("Events recorded and waiting to be written")
                .Register(registry)
                .Add({});
}

void EventMetrics::written(EventWrite verb) { written_[index_of(verb)]->Increment(); }

void EventMetrics::dropped(EventDrop reason, std::size_t count) {
  dropped_[index_of(reason)]->Increment(static_cast<double>(count));
}

void EventMetrics::queue_depth(std::size_t depth) { depth_->Set(static_cast<double>(depth)); }

double EventMetrics::written_total(EventWrite verb) const {
  return written_[index_of(verb)]->Value();
}

double EventMetrics::dropped_total(EventDrop reason) const {
  return dropped_[index_of(reason)]->Value();
}

double EventMetrics::queue_depth() const { return depth_->Value(); }

}  // namespace rg::op
