// is_cancellation: whether an exception only says that the awaiting coroutine was cancelled
// (Asio's operation_aborted, the transport's kCancelled, or both branches of an awaitable ||),
// so shutdown paths can tell it from a real failure.
#pragma once

#include <exception>

namespace rg::client {

bool is_cancellation(const std::exception_ptr& error);

}  // namespace rg::client
