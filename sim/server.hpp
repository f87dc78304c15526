// Server: kube-sim in one object -- store, registry, HTTP(S) API server and fault injection,
// running on its own io threads. For tests and benchmarks (start on an ephemeral port, talk to
// address(), stop()) and for the kube-sim binary.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "sim/collection_handlers.hpp"
#include "sim/faults.hpp"
#include "sim/object_store.hpp"
#include "sim/registry.hpp"
#include "sim/resource_table.hpp"

namespace rg::sim {

struct ServerOptions {
  std::string address = "127.0.0.1";
  unsigned short port = 0;  ///< 0 = ephemeral
  int io_threads = 1;
  StoreOptions store;
  WatchSettings watch;
  std::size_t body_limit = 3 * 1024 * 1024;
};

class Server {
 public:
  /// Binds, bootstraps the default namespaces and starts serving on background threads.
  explicit Server(ServerOptions options = {});
  ~Server();  ///< stop()
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  /// "http://127.0.0.1:<port>".
  std::string address() const;
  unsigned short port() const;

  Store& store();
  Registry& registry();
  Faults& faults();
  const ResourceTable& resources() const;

  /// Writes an admin kubeconfig (cluster, user, context "kube-sim") that stock kubectl uses
  /// unchanged; returns `path`.
  std::string write_kubeconfig(const std::string& path) const;

  /// Stops accepting, closes every connection and watch, joins the io threads. Idempotent.
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rg::sim
