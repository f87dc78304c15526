// CertificateWatcher: the metrics server's current TLS context from a certificate and key on
// disk (--metrics-cert-path/--metrics-cert-name/--metrics-cert-key), reloaded when the files
// change, like controller-runtime's certwatcher. It polls their contents: a Secret volume
// updates by swapping a `..data` symlink, which watches on the files themselves miss. A changed
// pair that does not load (e.g. caught between the two writes) is logged and the old context
// kept until the next poll. New connections get the new certificate; open ones keep theirs.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ssl/context.hpp>

#include <chrono>
#include <memory>
#include <mutex>
#include <string>

#include "client/cert/certificates.hpp"

namespace rg::op {

class CertificateWatcher {
 public:
  /// Loads the pair at once. Throws std::invalid_argument naming a missing or unusable file.
  CertificateWatcher(std::string cert_file, std::string key_file);

  /// The context for a new connection.
  std::shared_ptr<boost::asio::ssl::context> current() const;

  /// Reads the files once: a changed pair that loads replaces the context (true); an unchanged
  /// pair, or one that does not load (logged), leaves it (false).
  bool reload();

  /// reload() every `period` until cancelled (then returns).
  boost::asio::awaitable<void> watch(std::chrono::milliseconds period);

 private:
  client::CertificateAndKey read() const;

  std::string cert_file_;
  std::string key_file_;
  mutable std::mutex mutex_;  // guards the two below
  client::CertificateAndKey loaded_;
  std::shared_ptr<boost::asio::ssl::context> context_;
};

}  // namespace rg::op
