// Server: wiring of store, registry, API handler, fault injection and the HTTP server.
#include "sim/server.hpp"

#include <fmt/format.h>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>

#include <fstream>
#include <thread>
#include <vector>

#include "sim/api_server.hpp"
#include "sim/http_server.hpp"

namespace rg::sim {

struct Server::Impl {
  explicit Impl(ServerOptions opts)
      : options(std::move(opts)),
        store(options.store),
        registry(store, ResourceTable::builtin()),
        http(io, HttpServerOptions{options.address, options.port, options.body_limit, nullptr},
             [this](HttpRequest& request, ResponseStream& stream) {
               return api->handle(request, stream);
             }),
        faults(store, [this] { http.close_connections(); }) {
    api = std::make_unique<ApiServer>(registry, ApiServerOptions{options.watch, {}},
                                      fmt::format("{}:{}", options.address, http.port()));
    api->set_hook([this](HttpRequest& request, ResponseStream& stream) {
      return faults.intercept(request, stream);
    });
  }

  ServerOptions options;
  boost::asio::io_context io;
  Store store;
  Registry registry;
  std::unique_ptr<ApiServer> api;
  HttpServer http;
  Faults faults;
  std::vector<std::thread> threads;
  bool stopped = false;
};

Server::Server(ServerOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {
  impl_->registry.bootstrap();
  impl_->http.start();
  const int threads = std::max(1, impl_->options.io_threads);
  for (int i = 0; i < threads; ++i) impl_->threads.emplace_back([this] { impl_->io.run(); });
}

Server::~Server() { stop(); }

std::string Server::address() const {
  return fmt::format("{}://{}:{}", impl_->http.tls() ? "https" : "http", impl_->options.address,
                     impl_->http.port());
}

unsigned short Server::port() const { return impl_->http.port(); }
Store& Server::store() { return impl_->store; }
Registry& Server::registry() { return impl_->registry; }
Faults& Server::faults() { return impl_->faults; }
const ResourceTable& Server::resources() const { return impl_->registry.table(); }

std::string Server::write_kubeconfig(const std::string& path) const {
  std::ofstream out(path, std::ios::trunc);
  out << "apiVersion: v1\nkind: Config\n"
      << "clusters:\n- name: kube-sim\n  cluster:\n    server: " << address() << "\n"
      << "users:\n- name: admin\n  user:\n    token: kube-sim-admin\n"
      << "contexts:\n- name: kube-sim\n  context:\n    cluster: kube-sim\n    user: admin\n"
      << "    namespace: default\n"
      << "current-context: kube-sim\n";
  if (!out) throw std::runtime_error(fmt::format("cannot write kubeconfig {}", path));
  return path;
}

void Server::stop() {
  if (impl_->stopped) return;
  impl_->stopped = true;
  impl_->http.stop();
  impl_->store.close_all_watchers();
  for (auto& thread : impl_->threads) thread.join();
  impl_->threads.clear();
}

}  // namespace rg::sim
