// Runs a coroutine on a test's io_context until it completes (tests only). Other coroutines
// spawned on the same io_context progress meanwhile; a coroutine left waiting is an error.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>

#include <exception>
#include <optional>
#include <stdexcept>
#include <utility>

namespace rg::informer::test {

/// Runs ready handlers until `finished()` or nothing is ready (parked waiters keep the
/// io_context's work count up, so run() would block instead).
template <class Finished>
void drive(boost::asio::io_context& io, Finished finished) {
  io.restart();
  while (!finished() && io.poll_one() > 0) {
  }
}

/// Runs every ready handler. (An io_context whose work ran out is stopped: restart it first.)
inline void poll(boost::asio::io_context& io) {
  io.restart();
  io.poll();
}

template <class T>
T run_coro(boost::asio::io_context& io, boost::asio::awaitable<T> coro) {
  std::optional<T> result;
  std::exception_ptr error;
  boost::asio::co_spawn(io, std::move(coro), [&](const std::exception_ptr& e, T value) {
    error = e;
    if (!e) result = std::move(value);
  });
  drive(io, [&] { return result.has_value() || error; });
  if (error) std::rethrow_exception(error);
  if (!result) throw std::logic_error("coroutine did not finish: it is still waiting");
  return std::move(*result);
}

inline void run_coro(boost::asio::io_context& io, boost::asio::awaitable<void> coro) {
  bool done = false;
  std::exception_ptr error;
  boost::asio::co_spawn(io, std::move(coro), [&](const std::exception_ptr& e) {
    error = e;
    done = true;
  });
  drive(io, [&] { return done; });
  if (error) std::rethrow_exception(error);
  if (!done) throw std::logic_error("coroutine did not finish: it is still waiting");
}

}  // namespace rg::informer::test
