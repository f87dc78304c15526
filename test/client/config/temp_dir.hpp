// TempDir: a scratch folder for one test (removed afterwards), with helpers to write files and
// to run a coroutine to completion on a private io_context.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>

#include <sys/stat.h>

#include <atomic>
#include <exception>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>

namespace rg::test {

class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("rg-config-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(std::string_view name) const { return path_ / name; }

  /// Writes `content` to `name` (creating folders); `mode` e.g. 0755 for scripts.
  std::filesystem::path write(std::string_view name, std::string_view content,
                              mode_t mode = 0644) const {
    std::filesystem::path file = path_ / name;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary | std::ios::trunc) << content;
    ::chmod(file.c_str(), mode);
    return file;
  }

 private:
  std::filesystem::path path_;
};

/// Runs the coroutine on a fresh io_context and returns its result (or rethrows).
template <class T>
T run(boost::asio::awaitable<T> task) {
  boost::asio::io_context io;
  std::optional<T> result;
  std::exception_ptr error;
  boost::asio::co_spawn(io, std::move(task), [&](const std::exception_ptr& e, T value) {
    error = e;
    if (!e) result = std::move(value);
  });
  io.run();
  if (error) std::rethrow_exception(error);
  return std::move(*result);
}

/// Fake PEM blocks: the loader checks the PEM markers, not the certificate inside.
inline constexpr std::string_view kCaPem =
    "-----BEGIN CERTIFICATE-----\nY2EtZm9yLXRlc3Rz\n-----END CERTIFICATE-----\n";
inline constexpr std::string_view kCertPem =
    "-----BEGIN CERTIFICATE-----\nY2xpZW50LWNlcnQ=\n-----END CERTIFICATE-----\n";
inline constexpr std::string_view kKeyPem =
    "-----BEGIN PRIVATE KEY-----\nY2xpZW50LWtleQ==\n-----END PRIVATE KEY-----\n";

}  // namespace rg::test
