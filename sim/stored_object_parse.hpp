// Parsing a stored object's bytes back into a DOM in a chosen memory resource (e.g. an arena
// that lives as long as one write), without first joining its type meta and body into a copy.
#pragma once

#include <boost/json/stream_parser.hpp>

#include <string_view>
#include <utility>

#include "sim/stored_object.hpp"

namespace rg::sim {

/// `object` with kind and apiVersion, parsed into `storage`.
inline boost::json::object parse_stored_object(const StoredObject& object,
                                               boost::json::storage_ptr storage) {
  unsigned char temporary[4096];  // the parser's own stack, for all but deep documents
  boost::json::stream_parser parser({}, {}, temporary, sizeof temporary);
  parser.reset(std::move(storage));
  parser.write(object.type_meta_prefix());
  parser.write(std::string_view(object.body).substr(1));
  parser.finish();
  return std::move(parser.release().as_object());
}

}  // namespace rg::sim
