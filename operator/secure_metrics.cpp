// The secure metrics server's wiring (see secure_metrics.hpp).
#include "operator/secure_metrics.hpp"

#include <spdlog/spdlog.h>

#include <filesystem>

#include "operator/metrics_tls.hpp"

namespace rg::op {
namespace {

/// controller-runtime's certwatcher polls every 10 s besides its fsnotify watch; polling alone
/// sees a Secret volume's symlink swap within that.
constexpr std::chrono::seconds kCertificatePoll{10};

MetricsAuthConfig auth_config(const Options& options) {
  MetricsAuthConfig config;
  config.reviews_per_second = options.metrics_review_qps;
  config.review_burst = std::max(1, static_cast<int>(options.metrics_review_qps * 2));
  return config;
}

}  // namespace

SecureMetrics::SecureMetrics(const Options& options, client::RestClient& client,
                             prometheus::Registry& registry)
    : authorizer_(client, registry, auth_config(options)) {
  if (!options.metrics_cert_path.empty()) {
    const std::filesystem::path dir(options.metrics_cert_path);
    watcher_ = std::make_unique<CertificateWatcher>((dir / options.metrics_cert_name).string(),
                                                    (dir / options.metrics_cert_key).string());
  } else {
    // As controller-runtime: fine to encrypt a scrape, not to prove who serves it (Prometheus
    // then needs insecureSkipVerify, or a certificate from --metrics-cert-path and its CA).
    spdlog::info("metrics: serving HTTPS with a self-signed certificate (no --metrics-cert-path)");
    self_signed_ = make_metrics_tls_context(self_signed_metrics_certificate(), "self-signed");
  }
}

void SecureMetrics::secure(HttpServer& server) {
  if (watcher_) {
    server.use_tls([watcher = watcher_.get()] { return watcher->current(); });
  } else {
    server.use_tls([context = self_signed_] { return context; });
  }
  server.filter([this](const HttpRequestHead& request) { return authorizer_.admit(request); });
}

boost::asio::awaitable<void> SecureMetrics::watch_certificate() {
  if (watcher_) co_await watcher_->watch(kCertificatePoll);
}

}  // namespace rg::op
