// SecureMetrics: what --metrics-secure puts around the metrics server, as a kubebuilder v4
// scaffold configures controller-runtime's (metricsserver.Options{SecureServing: true,
// FilterProvider: filters.WithAuthenticationAndAuthorization}): HTTPS with the certificate from
// --metrics-cert-path (reloaded when it changes) or a self-signed one, and the
// TokenReview/SubjectAccessReview filter (MetricsAuthorizer) in front of /metrics.
#pragma once

#include <prometheus/registry.h>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ssl/context.hpp>

#include <memory>

#include "client/rest/rest_client.hpp"
#include "operator/certificate_watcher.hpp"
#include "operator/http_server.hpp"
#include "operator/metrics_authorizer.hpp"
#include "operator/options.hpp"

namespace rg::op {

class SecureMetrics {
 public:
  /// Loads (or generates) the certificate at once: a bad --metrics-cert-path fails the start.
  SecureMetrics(const Options& options, client::RestClient& client, prometheus::Registry& registry);

  /// Makes `server` serve HTTPS and authorize every request.
  void secure(HttpServer& server);

  /// Reloads a certificate from files when they change, until cancelled; returns at once for
  /// the self-signed one.
  boost::asio::awaitable<void> watch_certificate();

 private:
  std::unique_ptr<CertificateWatcher> watcher_;             ///< with --metrics-cert-path
  std::shared_ptr<boost::asio::ssl::context> self_signed_;  ///< without
  MetricsAuthorizer authorizer_;
};

}  // namespace rg::op
