// RunningFactory: a SharedInformerFactory on the fixture's io_context, shut down on destruction
// when it was started.
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "informer/shared_informer_factory.hpp"
#include "test/informer_e2e/sim_fixture.hpp"

namespace rg::informer::e2e {

class RunningFactory {
 public:
  RunningFactory(Fixture& fixture, SharedInformerFactoryOptions options)
      : fixture_(fixture), factory(fixture.client, std::move(options)) {}
  ~RunningFactory() {
    if (started_) fixture_.await(factory.shutdown());
  }
  RunningFactory(const RunningFactory&) = delete;
  RunningFactory& operator=(const RunningFactory&) = delete;

  void start() {
    started_ = true;
    factory.start(fixture_.io.get_executor());
  }
  /// The sync state of the informer called `name`, if the factory has one.
  std::optional<CacheSyncResult> state(const std::string& name) const {
    for (auto& result : factory.sync_state()) {
      if (result.name == name) return result;
    }
    return std::nullopt;
  }

 private:
  Fixture& fixture_;
  bool started_ = false;

 public:
  SharedInformerFactory factory;
};

}  // namespace rg::informer::e2e
