// Reloading the metrics certificate (see certificate_watcher.hpp).
#include "operator/certificate_watcher.hpp"

#include <spdlog/spdlog.h>

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "operator/metrics_tls.hpp"

namespace rg::op {
namespace {

std::string read_file(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::invalid_argument("metrics TLS: cannot read the " + std::string(what) + " file " +
                                path + " (check --metrics-cert-path and its names)");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

CertificateWatcher::CertificateWatcher(std::string cert_file, std::string key_file)
    : cert_file_(std::move(cert_file)), key_file_(std::move(key_file)) {
  loaded_ = read();
  context_ = make_metrics_tls_context(loaded_, cert_file_ + " and " + key_file_);
}

client::CertificateAndKey CertificateWatcher::read() const {
  return {read_file(cert_file_, "certificate"), read_file(key_file_, "key")};
}

std::shared_ptr<boost::asio::ssl::context> CertificateWatcher::current() const {
  std::lock_guard lock(mutex_);
  return context_;
}

bool CertificateWatcher::reload() {
  try {
    auto pair = read();
    {
      std::lock_guard lock(mutex_);
      if (pair.cert_pem == loaded_.cert_pem && pair.key_pem == loaded_.key_pem) return false;
    }
    auto context = make_metrics_tls_context(pair, cert_file_ + " and " + key_file_);
    std::lock_guard lock(mutex_);
    loaded_ = std::move(pair);
    context_ = std::move(context);
    spdlog::info("metrics: reloaded the serving certificate from {}", cert_file_);
    return true;
  } catch (const std::exception& error) {
    spdlog::warn("metrics: keeping the serving certificate: {}", error.what());
    return false;
  }
}

boost::asio::awaitable<void> CertificateWatcher::watch(std::chrono::milliseconds period) {
  boost::asio::steady_timer timer(co_await boost::asio::this_coro::executor);
  for (;;) {
    timer.expires_after(period);
    boost::system::error_code ec;
    co_await timer.async_wait(boost::asio::redirect_error(boost::asio::use_awaitable, ec));
    if (ec) co_return;  // cancelled: the server is stopping
    reload();
  }
}

}  // namespace rg::op
