// clock.cpp: the shared SteadyClock instance.
#include "workqueue/clock.hpp"

namespace rg::workqueue {

std::shared_ptr<const Clock> SteadyClock::shared() {
  static const std::shared_ptr<const Clock> instance = std::make_shared<SteadyClock>();
  return instance;
}

}  // namespace rg::workqueue
