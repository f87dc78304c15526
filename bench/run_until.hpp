// run_until: drives an io_context a millisecond at a time until a condition holds, rethrowing the
// first failure a coroutine spawned on it reported. Header-only, for bench/ executables.
#pragma once

#include <boost/asio/io_context.hpp>

#include <chrono>
#include <exception>

namespace rg::bench {

/// Runs `io` until `done()`, rethrowing `failure` once a coroutine has set it.
template <class Done>
void run_until(boost::asio::io_context& io, const std::exception_ptr& failure, Done done) {
  while (!done()) {
    if (failure) std::rethrow_exception(failure);
    io.restart();
    io.run_for(std::chrono::milliseconds(1));
  }
  if (failure) std::rethrow_exception(failure);
}

}  // namespace rg::bench
