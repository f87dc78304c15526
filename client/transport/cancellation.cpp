// Recognising cancellation (see cancellation.hpp).
#include "client/transport/cancellation.hpp"

#include <boost/asio/error.hpp>
#include <boost/asio/multiple_exceptions.hpp>
#include <boost/system/system_error.hpp>

#include "client/transport/transport_error.hpp"

namespace rg::client {

bool is_cancellation(const std::exception_ptr& error) {
  if (!error) return false;
  try {
    std::rethrow_exception(error);
  } catch (const TransportError& e) {
    return e.kind() == TransportErrorKind::kCancelled;
  } catch (const boost::system::system_error& e) {
    return e.code() == boost::asio::error::operation_aborted;
  } catch (const boost::asio::multiple_exceptions& e) {
    return is_cancellation(e.first_exception());
  } catch (...) {
    return false;
  }
}

}  // namespace rg::client
