// widget_controller: keeps a ConfigMap in step with the spec of every Widget (example.com/v1), as
// kubebuilder's tutorial controller does, on the library: a typed custom resource (widget.hpp),
// shared informers and listers for Widgets and ConfigMaps (a ConfigMap's change requeues its
// Widget), the rate-limited workqueue with coroutine workers, status writes, Events and leader
// election on a Lease.
//
//   widget_controller [--kubeconfig FILE] [--namespace NS] [--lease-namespace NS]
//
// Only the leader runs informers and workers; a standby waits for the Lease "widget-controller"
// (in --lease-namespace, default "default"). SIGINT or SIGTERM: the workers finish the keys they
// hold, the Lease is released, queued Events are written, and the program exits 0.
#include <unistd.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <chrono>
#include <csignal>
#include <exception>
#include <iostream>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "client/config/resolve.hpp"
#include "client/leaderelection/lease_lock.hpp"
#include "client/record/event_broadcaster.hpp"
#include "client/record/rest_event_sink.hpp"
#include "client/transport/cancellation.hpp"
#include "informer/enqueue_handlers.hpp"
#include "informer/shared_informer_factory.hpp"
#include "widget_reconciler.hpp"
#include "workqueue/rate_limiting_queue.hpp"

namespace asio = boost::asio;
using namespace asio::experimental::awaitable_operators;
using namespace rg;
using Queue = workqueue::RateLimitingQueue<std::string>;

namespace {

// Takes keys until the queue shuts down. Deaf to cancellation: a reconcile in flight finishes.
asio::awaitable<void> worker(Queue& queue, example::WidgetReconciler& reconciler) {
  co_await asio::this_coro::reset_cancellation_state(asio::disable_cancellation());
  while (auto key = co_await queue.get()) {  // a Claim: the key is ours until it ends
    try {
      co_await reconciler.reconcile(*key);
      queue.forget(*key);
    } catch (const std::exception& e) {
      std::cout << "reconcile " << *key << " failed, retrying: " << e.what() << std::endl;
      queue.add_rate_limited(*key);
    }
  }
}

// Waits to be cancelled (leadership lost, or a signal), then shuts the queue down.
asio::awaitable<void> shut_down_on_cancel(Queue& queue) {
  asio::steady_timer never(co_await asio::this_coro::executor,
                           asio::steady_timer::time_point::max());
  try {
    co_await never.async_wait(asio::use_awaitable);
  } catch (...) {
    if (!client::is_cancellation(std::current_exception())) throw;
  }
  queue.shut_down();
}

// One term of leadership. The informers, the queue and the workers live in this frame: a
// standby holds no cache, and a new term starts from a fresh LIST.
asio::awaitable<void> lead(client::RestClient& client, client::EventRecorder& events,
                           const std::string& namespace_) {
  const auto executor = co_await asio::this_coro::executor;
  informer::SharedInformerFactory factory(client, {.namespace_ = namespace_});
  auto& widgets = factory.informer_for<example::Widget>(example::widgets());
  auto& config_maps = factory.informer_for<client::ConfigMap>(client::resources::config_maps());
  const auto queue = Queue::create(executor);
  const informer::Enqueue enqueue = [queue](std::string key) { queue->add(std::move(key)); };
  widgets.add_event_handler("widget-controller",
                            informer::enqueue_object<example::Widget>(enqueue));
  config_maps.add_event_handler(
      "widget-controller",
      informer::enqueue_controller<client::ConfigMap>("example.com", "Widget", enqueue));
  example::WidgetReconciler reconciler(client, widgets.lister(), config_maps.lister(), events);

  std::exception_ptr failure;
  try {
    factory.start(executor);
    for (const auto& result : co_await factory.wait_for_cache_sync(std::chrono::seconds(60))) {
      if (!result.synced)
        throw std::runtime_error(result.name + " did not sync: " + result.message);
    }
    std::cout << "leading: caches synced, workers started" << std::endl;
    auto first = worker(*queue, reconciler);
    auto second = worker(*queue, reconciler);
    auto stopper = shut_down_on_cancel(*queue);
    co_await (std::move(first) && std::move(second) && std::move(stopper));
  } catch (...) {
    if (!client::is_cancellation(std::current_exception())) failure = std::current_exception();
  }
  // The informers must have stopped before the factory goes, also when the term was cancelled.
  co_await asio::this_coro::reset_cancellation_state(asio::disable_cancellation());
  co_await asio::this_coro::throw_if_cancelled(false);
  co_await factory.shutdown();
  if (failure) std::rethrow_exception(failure);
}

asio::awaitable<void> run(client::RestClient& client, const std::string& namespace_,
                          const std::string& lease_namespace) {
  const auto executor = co_await asio::this_coro::executor;
  const std::string identity = [] {
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    return std::string(host) + "_" + std::to_string(std::random_device{}() % 1'000'000'000);
  }();
  client::RestEventSink sink(client);
  client::EventBroadcaster events(sink, {.component = "widget-controller", .instance = identity});
  events.start(executor);
  client::RestLeaseLock lock(client, lease_namespace, "widget-controller");
  client::LeaderElector elector(lock, {.identity = identity});

  asio::signal_set signals(executor, SIGINT, SIGTERM);
  auto term = [&] { return lead(client, events, namespace_); };
  std::exception_ptr failure;
  try {
    auto campaign = elector.run(term);  // cancelled by a signal: releases the Lease
    auto stop = signals.async_wait(asio::use_awaitable);
    co_await (std::move(campaign) || std::move(stop));
  } catch (...) {
    failure = std::current_exception();
  }
  co_await events.shut_down();  // after the last reconcile: writes the queued Events
  if (failure) std::rethrow_exception(failure);
}

}  // namespace

int main(int argc, char** argv) {
  client::ResolveOptions resolve;
  std::string namespace_, lease_namespace = "default";
  const std::vector<std::string> args(argv + 1, argv + argc);
  for (std::size_t i = 0; i < args.size(); i += 2) {
    if (i + 1 == args.size()) {
      std::cerr << "usage: widget_controller [--kubeconfig FILE] [--namespace NS] "
                   "[--lease-namespace NS]\n";
      return 2;
    }
    if (args[i] == "--kubeconfig") {
      resolve.kubeconfig = args[i + 1];
    } else if (args[i] == "--namespace") {
      namespace_ = args[i + 1];
    } else if (args[i] == "--lease-namespace") {
      lease_namespace = args[i + 1];
    } else {
      std::cerr << "widget_controller: unknown flag " << args[i] << "\n";
      return 2;
    }
  }
  try {
    asio::io_context io;  // before the client: its connections must go before their io_context
    client::RestClient client(client::resolve_config(resolve));
    std::exception_ptr failure;
    asio::co_spawn(io, run(client, namespace_, lease_namespace),
                   [&](std::exception_ptr e) { failure = e; });
    io.run();
    if (failure) std::rethrow_exception(failure);
  } catch (const std::exception& e) {
    std::cerr << "widget_controller: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
