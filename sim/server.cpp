// Server: wiring of store, registry, API handler, authentication/authorization, fault injection
// and the HTTP(S) server.
#include "sim/server.hpp"

#include <fmt/format.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json.hpp>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "client/config/base64.hpp"
#include "client/config/token_auth.hpp"
#include "sim/api_error.hpp"
#include "sim/api_server.hpp"
#include "sim/auth/auth_filter.hpp"
#include "sim/auth/serving_certificate.hpp"
#include "sim/auth/user_info.hpp"
#include "sim/http_server.hpp"
#include "sim/responses.hpp"

namespace rg::sim {
namespace {

auth::ServingCertificate serving_certificate(const ServerOptions& options) {
  if (!options.tls.enabled) return {};
  const bool has_cert = !options.tls.cert_file.empty();
  const bool has_key = !options.tls.private_key_file.empty();
  if (has_cert != has_key)
    throw std::runtime_error(
        "give both --tls-cert-file and --tls-private-key-file, or neither (a CA and a serving "
        "certificate are generated then)");
  if (has_cert)
    return auth::load_serving_certificate(options.tls.cert_file, options.tls.private_key_file);
  return auth::generate_serving_certificate(options.address);
}

// The CA client certificates must chain to: --client-ca-file, else the generated CA (kubeadm
// uses one CA for both), else none (a given serving certificate alone authenticates no one).
std::string client_ca(const ServerOptions& options, const auth::ServingCertificate& certificate) {
  if (!options.tls.enabled) return {};
  if (!options.tls.client_ca_file.empty()) return auth::load_client_ca(options.tls.client_ca_file);
  return certificate.ca_key_pem.empty() ? std::string() : certificate.ca_pem;
}

// /sim/restart's ?seconds=N: how long the server stays down.
std::chrono::milliseconds restart_duration(const HttpRequest& request) {
  const std::string text(request.param("seconds").value_or("1"));
  char* end = nullptr;
  const double seconds = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !(seconds >= 0 && seconds <= 3600))
    throw errors::bad_request(
        fmt::format("seconds (how long the API server stays down) must be a number from 0 to "
                    "3600, not \"{}\"",
                    text));
  return std::chrono::milliseconds(static_cast<std::int64_t>(seconds * 1000));
}

// Scalars are written as JSON strings: valid YAML double-quoted, whatever they hold.
std::string yaml_string(std::string_view text) {
  return boost::json::serialize(boost::json::string(text));
}

}  // namespace

struct Server::Impl {
  explicit Impl(ServerOptions opts)
      : options(std::move(opts)),
        certificate(serving_certificate(options)),
        client_ca_pem(client_ca(options, certificate)),
        store(options.store),
        registry(store, ResourceTable::builtin()),
        http(io,
             HttpServerOptions{options.address, options.port, options.body_limit,
                               options.tls.enabled
                                   ? auth::make_server_tls_context(certificate, client_ca_pem)
                                   : nullptr},
             [this](HttpRequest& request, ResponseStream& stream) {
               return api->handle(request, stream);
             }),
        faults(store, [this] { http.close_connections(); }),
        control(boost::asio::make_strand(io)),
        restart_timer(control) {
    registry.bootstrap();
    auth_filter = std::make_unique<auth::AuthFilter>(registry, options.auth);
    api = std::make_unique<ApiServer>(registry, ApiServerOptions{options.watch, {}},
                                      fmt::format("{}:{}", options.address, http.port()));
    // Authentication and authorization first (a real API server's filter order), then the admin
    // endpoint and injected faults.
    auth_filter->set_next([this](HttpRequest& request, ResponseStream& stream) {
      return intercept(request, stream);
    });
    api->set_hook([this](HttpRequest& request, ResponseStream& stream) {
      return auth_filter->intercept(request, stream);
    });
    api->set_write_record(&writes);
    admin.route("/sim/writes",
                [this](const HttpRequest& request) { return writes.serve(request); });
  }

  void restart(std::chrono::milliseconds down_for) {
    faults.control_plane_outage(down_for);
    http.stop_listening();
    store.close_all_watchers();
    store.compact();
    restart_timer.expires_after(down_for);
    restart_timer.async_wait([this](const boost::system::error_code& ec) {
      if (!ec) http.resume_listening();
    });
  }

  // The admin routes others serve, then /sim/faults and the injected faults.
  boost::asio::awaitable<bool> intercept(HttpRequest& request, ResponseStream& stream) {
    if (request.path == "/sim/restart") {
      if (request.method != "POST") throw errors::bad_request("POST /sim/restart?seconds=N");
      const auto down_for = restart_duration(request);
      HttpResponse response =
          json_response(200, fmt::format(R"({{"restartingForSeconds":{}}})",
                                         std::chrono::duration<double>(down_for).count()));
      co_await stream.send(response);
      // On the control strand, and awaited: the listener's close is queued before this
      // connection reads its next request.
      auto go_down = [this, down_for]() -> boost::asio::awaitable<void> {
        restart(down_for);
        co_return;
      };
      co_await boost::asio::co_spawn(control, go_down, boost::asio::use_awaitable);
      co_return true;
    }
    if (request.path.starts_with("/sim/"))
      if (auto response = admin.serve(request)) {
        co_await stream.send(*response);
        co_return true;
      }
    co_return co_await faults.intercept(request, stream);
  }

  ServerOptions options;
  auth::ServingCertificate certificate;
  std::string client_ca_pem;
  boost::asio::io_context io;
  Store store;
  Registry registry;
  std::unique_ptr<auth::AuthFilter> auth_filter;
  std::unique_ptr<ApiServer> api;
  HttpServer http;
  Faults faults;
  WriteRecord writes;
  AdminRoutes admin;
  // Restarts run on this strand: one at a time, and never beside stop()'s timer cancel.
  boost::asio::strand<boost::asio::io_context::executor_type> control;
  boost::asio::steady_timer restart_timer;
  std::vector<std::thread> threads;
  bool stopped = false;
};

Server::Server(ServerOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {
  impl_->http.start();
  const int threads = std::max(1, impl_->options.io_threads);
  for (int i = 0; i < threads; ++i) impl_->threads.emplace_back([this] { impl_->io.run(); });
}

Server::~Server() { stop(); }

std::string Server::address() const {
  // Listening on every address: clients reach it (and the certificate names it) as loopback.
  std::string host = impl_->options.address;
  boost::system::error_code ec;
  const auto parsed = boost::asio::ip::make_address(host, ec);
  if (!ec && parsed.is_unspecified()) host = parsed.is_v6() ? "::1" : "127.0.0.1";
  if (!ec && parsed.is_v6()) host = "[" + host + "]";
  return fmt::format("{}://{}:{}", impl_->http.tls() ? "https" : "http", host, impl_->http.port());
}

unsigned short Server::port() const { return impl_->http.port(); }
Store& Server::store() { return impl_->store; }
Registry& Server::registry() { return impl_->registry; }
Faults& Server::faults() { return impl_->faults; }
WriteRecord& Server::writes() { return impl_->writes; }
void Server::restart(std::chrono::milliseconds down_for) {
  boost::asio::post(impl_->control, [impl = impl_.get(), down_for] { impl->restart(down_for); });
}
void Server::route_admin(std::string prefix, AdminRoutes::Handler handler) {
  impl_->admin.route(std::move(prefix), std::move(handler));
}
const ResourceTable& Server::resources() const { return impl_->registry.table(); }
const std::string& Server::ca_pem() const { return impl_->certificate.ca_pem; }

const std::string& Server::admin_token() const {
  return impl_->auth_filter->authenticator().admin_token();
}

bool Server::issues_client_certificates() const {
  return !impl_->certificate.ca_key_pem.empty() && impl_->client_ca_pem == ca_pem();
}

client::CertificateAndKey Server::issue_client_certificate(
    std::string_view common_name, const std::vector<std::string>& groups) const {
  if (!issues_client_certificates())
    throw std::logic_error(
        "kube-sim issues client certificates only when it serves HTTPS with the CA it generated "
        "and no --client-ca-file");
  client::CertificateRequest request;
  request.common_name = std::string(common_name);
  request.organizations = groups;
  request.server_auth = false;
  request.client_auth = true;
  return client::issue_certificate({impl_->certificate.ca_pem, impl_->certificate.ca_key_pem},
                                   request);
}

std::string Server::write_kubeconfig(const std::string& path) const {
  if (!issues_client_certificates()) return write_kubeconfig(path, admin_token(), "default");
  const auto admin =
      issue_client_certificate(auth::kAdminUser, {std::string(auth::kSystemMasters)});
  return write_kubeconfig_file(
      path,
      fmt::format("    client-certificate-data: {}\n"
                  "    client-key-data: {}\n",
                  client::base64_encode(admin.cert_pem), client::base64_encode(admin.key_pem)),
      "default");
}

std::string Server::write_kubeconfig(const std::string& path, std::string_view token,
                                     std::string_view namespace_) const {
  return write_kubeconfig_file(path, fmt::format("    token: {}\n", yaml_string(token)),
                               namespace_);
}

std::string Server::write_kubeconfig_file(const std::string& path, std::string_view credentials,
                                          std::string_view namespace_) const {
  std::string ca_line;
  if (!ca_pem().empty())
    ca_line = fmt::format("    certificate-authority-data: {}\n", client::base64_encode(ca_pem()));
  const std::string config = fmt::format(
      "apiVersion: v1\nkind: Config\n"
      "clusters:\n- name: kube-sim\n  cluster:\n    server: {}\n{}"
      "users:\n- name: kube-sim-user\n  user:\n{}"
      "contexts:\n- name: kube-sim\n  context:\n    cluster: kube-sim\n    user: kube-sim-user\n"
      "    namespace: {}\n"
      "current-context: kube-sim\n",
      yaml_string(address()), ca_line, credentials, yaml_string(namespace_));
  std::ofstream out(path, std::ios::trunc);
  out << config;
  out.close();
  if (!out) throw std::runtime_error(fmt::format("cannot write kubeconfig {}", path));
  // It holds a credential: readable by its owner only, as kubeadm writes admin.conf.
  std::error_code ignored;
  std::filesystem::permissions(
      path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write, ignored);
  return path;
}

client::RestConfig Server::rest_config() const { return rest_config(admin_token(), "default"); }

client::RestConfig Server::rest_config(std::string_view token, std::string_view namespace_) const {
  client::RestConfig config;
  config.host = address();
  config.tls.ca_pem = ca_pem();
  config.auth = std::make_shared<client::StaticToken>(std::string(token));
  config.namespace_ = std::string(namespace_);
  config.source = "kube-sim in-process";
  return config;
}

std::string Server::create_token(std::string_view namespace_, std::string_view service_account,
                                 std::chrono::seconds expiration) {
  auth::TokenRequestSpec spec;
  spec.expiration = expiration;
  return impl_->auth_filter->token_requests().issue(namespace_, service_account, spec).token;
}

client::RestConfig Server::service_account_config(std::string_view namespace_,
                                                  std::string_view service_account) {
  const auto* type = impl_->registry.table().find("", "v1", "serviceaccounts");
  if (!impl_->store.get(*type, namespace_, service_account)) {
    boost::json::object account{
        {"apiVersion", "v1"},
        {"kind", "ServiceAccount"},
        {"metadata", boost::json::object{{"name", service_account}, {"namespace", namespace_}}}};
    impl_->registry.create(*type, namespace_, std::move(account), {"kube-sim"});
  }
  return rest_config(create_token(namespace_, service_account), namespace_);
}

void Server::stop() {
  if (impl_->stopped) return;
  impl_->stopped = true;
  boost::asio::post(impl_->control, [impl = impl_.get()] { impl->restart_timer.cancel(); });
  impl_->http.stop();
  impl_->store.close_all_watchers();
  for (auto& thread : impl_->threads) thread.join();
  impl_->threads.clear();
}

}  // namespace rg::sim
