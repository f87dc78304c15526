// run_process: runs a program without blocking the io_context (posix_spawn, its stdout and stderr
// read through Asio stream descriptors, its exit awaited through a pidfd), with a deadline after
// which the program and everything it started are killed. Used for exec credential plugins.
#pragma once

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace rg::client {

struct ProcessSpec {
  std::string command;  ///< a path, or a name looked up in $PATH
  std::vector<std::string> args;
  /// Added to (and overriding) this process's environment.
  std::vector<std::pair<std::string, std::string>> env;
  std::chrono::milliseconds timeout{std::chrono::seconds(60)};
  std::size_t max_output = 4 << 20;  ///< bytes per stream; more is an error
};

struct ProcessResult {
  int exit_code = -1;  ///< when it exited normally, else -1
  int signal = 0;      ///< the signal that killed it, else 0
  bool timed_out = false;
  std::string out;
  std::string err;
};

/// Runs `spec` to completion. Throws std::system_error when it cannot be started (e.g. ENOENT)
/// or its output exceeds max_output. Cancelling the awaiting coroutine kills the process.
boost::asio::awaitable<ProcessResult> run_process(const ProcessSpec& spec);

}  // namespace rg::client
