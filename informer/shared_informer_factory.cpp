// SharedInformerFactory's running and waiting (see shared_informer_factory.hpp).
#include "informer/shared_informer_factory.hpp"

#include <spdlog/spdlog.h>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/strand.hpp>

#include "async/condition.hpp"
#include "client/transport/cancellation.hpp"

namespace rg::informer {

namespace asio = boost::asio;

// The informers started so far: each runs on its own strand, where its cancellation signal is
// emitted too (Asio's signals are not thread-safe).
struct SharedInformerFactory::Running {
  struct Started {
    explicit Started(asio::strand<asio::any_io_executor> s) : strand(std::move(s)) {}
    asio::strand<asio::any_io_executor> strand;
    asio::cancellation_signal stop;
  };
  std::mutex mutex;
  async::Condition ended{mutex};
  std::map<const Base*, std::unique_ptr<Started>> started;
  std::size_t active = 0;
};

SharedInformerFactory::SharedInformerFactory(client::RestClient& client,
                                             SharedInformerFactoryOptions options)
    : client_(client), options_(std::move(options)), running_(std::make_shared<Running>()) {}

SharedInformerFactory::~SharedInformerFactory() = default;

void SharedInformerFactory::start(const asio::any_io_executor& executor) {
  std::lock_guard lock(mutex_);
  for (auto& [key, informer] : informers_) {
    std::unique_lock running_lock(running_->mutex);
    if (running_->started.contains(informer.get())) continue;
    auto& started = running_->started[informer.get()] =
        std::make_unique<Running::Started>(asio::make_strand(executor));
    ++running_->active;
    running_lock.unlock();
    auto on_end = [running = running_,
                   name = informer->state().name](const std::exception_ptr& error) {
      if (error && !client::is_cancellation(error)) {
        try {
          std::rethrow_exception(error);
        } catch (const std::exception& e) {
          spdlog::error("informer {} stopped: {}", name, e.what());
        }
      }
      std::lock_guard lock(running->mutex);
      --running->active;
      running->ended.notify_all_locked();
    };
    asio::co_spawn(started->strand, informer->run(),
                   asio::bind_cancellation_slot(started->stop.slot(), std::move(on_end)));
  }
}

std::vector<CacheSyncResult> SharedInformerFactory::sync_state() const {
  std::lock_guard lock(mutex_);
  std::vector<CacheSyncResult> results;
  for (const auto& [key, informer] : informers_) {
    std::lock_guard running_lock(running_->mutex);
    if (running_->started.contains(informer.get())) results.push_back(informer->state());
  }
  return results;
}

asio::awaitable<std::vector<CacheSyncResult>> SharedInformerFactory::wait_for_cache_sync(
    std::chrono::milliseconds timeout) const {
  // Polled like client-go's WaitForCacheSync: syncing is a one-off event per informer.
  constexpr auto kPollInterval = std::chrono::milliseconds(50);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  asio::steady_timer timer(co_await asio::this_coro::executor);
  for (;;) {
    std::vector<CacheSyncResult> results = sync_state();
    const bool all_synced = std::all_of(results.begin(), results.end(),
                                        [](const CacheSyncResult& r) { return r.synced; });
    if (all_synced || std::chrono::steady_clock::now() >= deadline) co_return results;
    timer.expires_after(kPollInterval);
    co_await timer.async_wait(asio::use_awaitable);
  }
}

asio::awaitable<void> SharedInformerFactory::shutdown() {
  {
    std::lock_guard lock(running_->mutex);
    for (auto& [informer, started] : running_->started) {
      asio::dispatch(started->strand, [signal = &started->stop] {
        signal->emit(asio::cancellation_type::terminal);
      });
    }
  }
  auto all_ended = [running = running_.get()] { return running->active == 0; };
  co_await running_->ended.until(all_ended);
}

}  // namespace rg::informer
