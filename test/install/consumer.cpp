// A program outside the tree, built against the installed libraries with pkg-config only (see
// install_test.sh): a dynamic informer from a factory, the RESTMapper, a typed lister and the
// rate-limited workqueue -- the headers and symbols another operator needs.
#include <boost/asio/io_context.hpp>

#include <iostream>

#include "client/discovery/rest_mapper.hpp"
#include "client/model/pod.hpp"
#include "client/rest/rest_client.hpp"
#include "client/version.hpp"
#include "informer/dynamic_informer_factory.hpp"
#include "workqueue/rate_limiting_queue.hpp"

int main() {
  boost::asio::io_context io;
  rg::client::RestConfig config;
  config.host = "http://127.0.0.1:1";
  rg::client::RestClient client(config);
  rg::client::RESTMapper mapper(client);
  rg::informer::DynamicSharedInformerFactory dynamic(client, {});
  auto& widgets = dynamic.for_resource({"example.com", "v1", "widgets", true, "", ""});
  rg::informer::SharedInformerFactory typed(client, {});
  auto& pods = typed.informer_for<rg::client::Pod>(rg::client::resources::pods());
  auto queue = rg::workqueue::RateLimitingQueue<std::string>::create(io.get_executor());
  queue->add("default/web");
  std::cout << "replica-guard " << rg::kVersion << ": " << widgets.name() << ", " << pods.name()
            << ", " << pods.lister().list().size() << " pods cached, " << queue->len()
            << " key queued\n";
  return widgets.has_synced() ? 1 : 0;
}
