// Reading a response body incrementally through Beast's buffer_body parser.
#include "client/transport/body_reader.hpp"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>

#include "client/transport/response_state.hpp"

namespace rg::client {

namespace asio = boost::asio;
namespace http = boost::beast::http;

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
  if (state_) state_->deadline = deadline;
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
  const auto finish = [&state] {
    state.done = true;
    state.lease.reusable = state.parser.keep_alive();
    state.lease.release();
  };
  auto& connection = *state.lease.connection;
  connection.set_deadline(state.deadline);
  for (;;) {
    if (state.parser.is_done()) {
      finish();
      co_return std::string_view();
    }
    auto& body = state.parser.get().body();
    body.data = state.chunk.data();
    body.size = state.chunk.size();
    boost::system::error_code ec;
    co_await http::async_read_some(connection.stream(), connection.buffer(), state.parser,
                                   asio::redirect_error(asio::use_awaitable, ec));
    if (ec == http::error::need_buffer) ec = {};
    if (ec) {
      auto error = connection.error(ec, IoStage::kReadBody);  // before close() drops connection
      close();
      throw error;  // NOLINT(misc-throw-by-value-catch-by-reference): made before close()
    }
    const auto size = state.chunk.size() - state.parser.get().body().size;
    if (state.parser.is_done()) {
      finish();
      co_return std::string_view(state.chunk.data(), size);
    }
    if (size > 0) co_return std::string_view(state.chunk.data(), size);
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
