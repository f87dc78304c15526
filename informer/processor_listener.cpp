// Logging for ProcessorListener and SharedProcessor (kept out of the headers so they stay light).
#include "informer/processor_listener.hpp"
#include "informer/detail/shared_processor.hpp"

#include <spdlog/spdlog.h>

namespace rg::informer::detail {

void log_handler_failure(std::string_view handler, std::string_view callback,
                         std::string_view what) {
  spdlog::error("informer event handler '{}' threw from {}: {}; continuing with the next event",
                handler, callback, what);
}

void log_undelivered(std::string_view handler, std::size_t count) {
  spdlog::warn("informer event handler '{}' stopped with {} undelivered notification(s)", handler,
               count);
}

}  // namespace rg::informer::detail

namespace rg::informer::detail {

void log_listener_crash(std::string_view handler, const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    spdlog::error("informer event handler '{}' delivery loop ended with an error: {}", handler,
                  e.what());
  } catch (...) {
    spdlog::error("informer event handler '{}' delivery loop ended with a non-standard exception",
                  handler);
  }
}

}  // namespace rg::informer::detail
