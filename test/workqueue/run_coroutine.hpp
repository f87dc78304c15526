// run_coroutine.hpp: helpers for driving workqueue coroutines in tests, and for reading the
// Claims that get() returns.
#pragma once

#include <exception>
#include <memory>
#include <optional>
#include <type_traits>
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

// co_await q->get(), as a coroutine to run() or spawn().
template <class Q>
boost::asio::awaitable<typename Q::Claim> get_one(std::shared_ptr<Q> q) {
  co_return co_await q->get();
}

// A copy of the key `claim` holds, or std::nullopt if it is empty.
template <class Claim>
auto key_of(const Claim& claim) -> std::optional<std::decay_t<decltype(*claim)>> {
  if (!claim) return std::nullopt;
  return *claim;
}

}  // namespace rg::workqueue::test
