// dynamic_crd_watch: prints every change to the objects of a kind found through discovery -- a
// custom resource whose CustomResourceDefinition may be created after the program starts -- with
// a dynamic informer (no C++ type for the kind).
//
//   dynamic_crd_watch [--kubeconfig FILE] GROUP KIND [NAMESPACE]
//   dynamic_crd_watch example.com Widget shop
//
// Prints one line per event, flushed: "ADDED shop/w1 {spec}", "MODIFIED ...", "DELETED ...";
// "waiting for kind Widget: ..." while the kind is not served yet. Stops on SIGINT or SIGTERM.
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json/serialize.hpp>

#include <chrono>
#include <csignal>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "client/config/resolve.hpp"
#include "client/discovery/rest_mapper.hpp"
#include "informer/dynamic_informer_factory.hpp"

namespace asio = boost::asio;
using namespace rg;
using ObjectPtr = std::shared_ptr<const client::Unstructured>;

namespace {

void print(std::string_view event, const client::Unstructured& object) {
  const auto* spec = object.object().if_contains("spec");
  std::cout << event << " " << informer::meta_namespace_key(object) << " "
            << (spec ? boost::json::serialize(*spec) : "{}") << std::endl;
}

// Maps the kind to its resource, retrying every second until discovery serves it.
asio::awaitable<client::RESTMapping> wait_for_kind(client::RESTMapper& mapper,
                                                   client::GroupVersionKind kind) {
  asio::steady_timer retry(co_await asio::this_coro::executor);
  for (;;) {
    try {
      co_return co_await mapper.rest_mapping(kind);
    } catch (const client::NoMatchError& e) {
      std::cout << "waiting for kind " << kind.kind << ": " << e.what() << std::endl;
    }
    retry.expires_after(std::chrono::seconds(1));
    co_await retry.async_wait(asio::use_awaitable);
  }
}

asio::awaitable<void> watch(client::RestClient& client, client::GroupVersionKind kind,
                            std::string namespace_name) {
  client::RESTMapper mapper(client, {.min_refresh_interval = std::chrono::seconds(1)});
  const client::RESTMapping mapping = co_await wait_for_kind(mapper, kind);
  std::cout << "watching " << mapping.resource.group_resource() << " " << mapping.resource.version
            << std::endl;

  informer::SharedInformerFactoryOptions options;
  options.namespace_ = std::move(namespace_name);
  informer::DynamicSharedInformerFactory factory(client, std::move(options));
  informer::DynamicInformer& objects = factory.for_resource(mapping.resource);
  objects.add_event_handler(
      "print",
      {.on_add = [](const ObjectPtr& object, bool) { print("ADDED", *object); },
       .on_update = [](const ObjectPtr&, const ObjectPtr& object) { print("MODIFIED", *object); },
       .on_delete =
           [](const informer::ObjectOrTombstone<client::Unstructured>& object) {
             if (const auto& last = informer::object_of(object)) print("DELETED", *last);
           }});
  factory.start(co_await asio::this_coro::executor);

  asio::signal_set signals(co_await asio::this_coro::executor, SIGINT, SIGTERM);
  co_await signals.async_wait(asio::use_awaitable);
  co_await factory.shutdown();
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  client::ResolveOptions resolve;
  if (args.size() >= 2 && args[0] == "--kubeconfig") {
    resolve.kubeconfig = args[1];
    args.erase(args.begin(), args.begin() + 2);
  }
  if (args.size() < 2 || args.size() > 3) {
    std::cerr << "usage: dynamic_crd_watch [--kubeconfig FILE] GROUP KIND [NAMESPACE]\n";
    return 2;
  }
  try {
    asio::io_context io;  // before the client: its connections must go before their io_context
    client::RestClient client(client::resolve_config(resolve));
    std::exception_ptr failure;
    asio::co_spawn(io, watch(client, {args[0], "", args[1]}, args.size() == 3 ? args[2] : ""),
                   [&](std::exception_ptr e) { failure = e; });
    io.run();
    if (failure) std::rethrow_exception(failure);
  } catch (const std::exception& e) {
    std::cerr << "dynamic_crd_watch: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
