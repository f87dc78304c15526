// run_coroutine.hpp: helpers for driving workqueue coroutines in tests.
#pragma once

#include <exception>
#include <optional>
#include <utility>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>

namespace rg::workqueue::test {

// The outcome of a coroutine spawned with spawn(): unset until it finishes.
template <class T>
struct Outcome {
  bool finished = false;
  std::optional<T> value;
  std::exception_ptr error;
};

template <>
struct Outcome<void> {
  bool finished = false;
  std::exception_ptr error;
};

// Starts `coro` on `io`; `out` records how it ended (it must outlive the run).
template <class T>
void spawn(boost::asio::io_context& io, boost::asio::awaitable<T> coro, Outcome<T>& out) {
  if constexpr (std::is_void_v<T>) {
    boost::asio::co_spawn(io, std::move(coro), [&out](const std::exception_ptr& e) {
      out.finished = true;
      out.error = e;
    });
  } else {
    boost::asio::co_spawn(io, std::move(coro), [&out](const std::exception_ptr& e, T v) {
      out.finished = true;
      out.error = e;
      if (!e) out.value = std::move(v);
    });
  }
}

// Runs `coro` on a fresh pass of `io` until nothing is left to do; returns its value.
template <class T>
T run(boost::asio::io_context& io, boost::asio::awaitable<T> coro) {
  Outcome<T> out;
  spawn(io, std::move(coro), out);
  io.restart();
  io.run();
  if (out.error) std::rethrow_exception(out.error);
  if constexpr (!std::is_void_v<T>) return std::move(*out.value);
}

}  // namespace rg::workqueue::test
