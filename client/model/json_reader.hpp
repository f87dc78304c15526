// JsonReader: drives a ValueSink from Boost.JSON's incremental SAX parser (basic_parser), fed
// arbitrary chunks. It reads one JSON document after another (whitespace between them is
// skipped), assembles keys and strings split across chunks, and caps the size of a document.
#pragma once

#include <cstddef>
#include <memory>
#include <string_view>

#include "client/model/value_sink.hpp"

namespace rg::client::detail {

/// How deep the decoders read JSON: Go's encoding/json nests up to 10000 levels (scanner.go,
/// maxNestingDepth), and so do the API server and client-go; Boost.JSON's default of 32 is too
/// shallow for managedFields of deep objects.
inline constexpr std::size_t kMaxJsonDepth = 10000;

/// True if `data` is only JSON whitespace (space, tab, CR, LF): all that may follow a document
/// that must stand alone.
bool is_json_whitespace(std::string_view data) noexcept;

class JsonReader {
 public:
  /// `max_document_bytes` == 0: no limit.
  explicit JsonReader(ValueSink& sink, std::size_t max_document_bytes = 0);
  ~JsonReader();
  JsonReader(const JsonReader&) = delete;
  JsonReader& operator=(const JsonReader&) = delete;

  /// Parses from the front of `data`, removing what it consumed. Returns true when a document
  /// completed (the rest of the input stays in `data`), false when `data` is used up first.
  /// Throws DecodeError on invalid JSON, a sink error or an oversized document; after that
  /// every call throws again.
  bool write(std::string_view& data);

  /// Parses all of `json` as exactly one document (only whitespace may follow it).
  void write_whole(std::string_view json);

  /// True while a document has begun and not completed.
  bool in_document() const noexcept;
  /// Bytes of the current (or last) document read so far.
  std::size_t document_bytes() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rg::client::detail
