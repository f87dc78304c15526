// Reading a response body incrementally: large socket reads into the connection's buffer, the
// framing taken off in place (BodyFraming), the body handed out as views of that buffer; the
// deadline is the connection's watchdog, not a timer per read.
#include "client/transport/body_reader.hpp"

#include <boost/asio/error.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/error.hpp>

#include <algorithm>

#include "client/transport/response_state.hpp"

namespace rg::client {

namespace asio = boost::asio;

BodyReader::BodyReader() = default;
BodyReader::BodyReader(std::unique_ptr<State> state) : state_(std::move(state)) {}
BodyReader::BodyReader(BodyReader&&) noexcept = default;
BodyReader& BodyReader::operator=(BodyReader&&) noexcept = default;
BodyReader::~BodyReader() = default;

int BodyReader::status() const { return state_ ? state_->status : 0; }

const HttpHeaders& BodyReader::headers() const {
  static const HttpHeaders kNone;
  return state_ ? state_->headers : kNone;
}

bool BodyReader::done() const { return !state_ || state_->done; }

void BodyReader::set_deadline(Deadline deadline) {
  if (!done() && state_->lease.connection) state_->lease.connection->set_deadline(deadline);
}

void BodyReader::close() {
  if (state_) {
    state_->done = true;
    state_->lease.release();
  }
}

asio::awaitable<std::string_view> BodyReader::read_some() {
  if (done()) co_return std::string_view();
  auto& state = *state_;
  auto& connection = *state.lease.connection;
  auto& buffer = connection.buffer();
  // Throws the TransportError for `ec`, having closed the connection.
  const auto fail = [&](boost::system::error_code ec) {
    auto error = connection.error(ec, IoStage::kReadBody);  // before close() drops connection
    close();
    throw error;  // NOLINT(misc-throw-by-value-catch-by-reference): made before close()
  };
  for (;;) {
    if (state.framing.done()) {  // also after the last piece was handed out by the last call
      state.done = true;
      connection.set_deadline(kNoDeadline);  // idle in the pool: no deadline
      state.lease.reusable = state.parser.keep_alive();
      state.lease.release();
      co_return std::string_view();
    }
    if (buffer.size() != 0) {
      const auto* data = static_cast<const char*>(buffer.data().data());
      const std::size_t available = std::min(buffer.size(), State::kReadSize);
      std::string_view input(data, available);
      boost::system::error_code ec;
      const std::string_view piece = state.framing.next(input, ec);
      // The piece stays valid after consume(): the bytes are only overwritten by the next read.
      buffer.consume(available - input.size());
      if (ec) fail(ec);
      if (!piece.empty()) {
        if (state.tracer) state.tracer->on_body_read(state.target, piece);
        co_return piece;
      }
      if (state.framing.done()) continue;
    }
    if (connection.timed_out()) fail(boost::beast::error::timeout);
    boost::system::error_code ec;
    const std::size_t size = co_await connection.stream().async_read_some(
        buffer.prepare(State::kReadSize), asio::redirect_error(asio::use_awaitable, ec));
    buffer.commit(size);
    if (!ec) continue;
    if (ec == asio::error::eof && state.framing.ends_at_close()) {
      state.done = true;
      close();  // an until-close body: the connection cannot be reused
      co_return std::string_view();
    }
    fail(ec);  // a timeout, however it surfaced, once the connection's deadline passed
  }
}

asio::awaitable<std::string> BodyReader::read_all(std::size_t limit) {
  std::string body;
  for (;;) {
    const auto piece = co_await read_some();
    if (piece.empty()) co_return body;
    if (body.size() + piece.size() > limit) {
      close();
      throw TransportError(TransportErrorKind::kProtocol, {},
                           "response body larger than " + std::to_string(limit) + " bytes");
    }
    body.append(piece);
  }
}

asio::awaitable<HttpResponse> BodyReader::read_response(std::size_t limit) {
  HttpResponse response;
  response.body = co_await read_all(limit);
  response.status = status();
  response.headers = headers();
  co_return response;
}

}  // namespace rg::client
