// BodyReader::State: the connection lease and Beast parser behind a BodyReader. Internal to the
// transport: Transport fills it when the response header arrives, BodyReader drains the body.
#pragma once

#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/parser.hpp>

#include <array>

#include "client/transport/body_reader.hpp"
#include "client/transport/connection_pool.hpp"

namespace rg::client {

struct BodyReader::State {
  static constexpr std::size_t kChunkSize = std::size_t{64} * 1024;

  explicit State(ConnectionLease lease) : lease(std::move(lease)) {}

  ConnectionLease lease;
  boost::beast::http::response_parser<boost::beast::http::buffer_body> parser;
  std::array<char, kChunkSize> chunk;
  Deadline deadline = kNoDeadline;
  int status = 0;
  HttpHeaders headers;
  bool done = false;
};

}  // namespace rg::client
