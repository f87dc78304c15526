// ConfigError: a kubeconfig or in-cluster configuration that cannot be used, naming the file, the
// line, the entry, the problem and what to do about it.
#pragma once

#include <stdexcept>
#include <string>

namespace rg::client {

class ConfigError : public std::runtime_error {
 public:
  /// `line` is 1-based, 0 when unknown; `entry` is e.g. `context "dev"`, may be empty; `hint`
  /// says what to do and may be empty.
  ConfigError(std::string file, int line, std::string entry, std::string problem,
              const std::string& hint = {});

  const std::string& file() const { return file_; }
  int line() const { return line_; }
  const std::string& entry() const { return entry_; }
  const std::string& problem() const { return problem_; }

 private:
  std::string file_;
  int line_;
  std::string entry_;
  std::string problem_;
};

}  // namespace rg::client
