// Fuzzes ListDecoder<T>: the first byte picks T and a chunk size, the rest is a LIST body.
// Properties: whole and chunked feeding give the same items, metadata and failure; bad input
// fails only with DecodeError; every decoded item round-trips.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "client/watch/list_decoder.hpp"
#include "test/fuzz/object_types.hpp"

using namespace rg::client;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  rg::fuzz::compare_whole_and_chunked(
      data, size, []<class T>(std::string_view body, std::size_t chunk, bool check) {
        ListDecoder<T> decoder;
        std::vector<std::shared_ptr<const T>> items;
        rg::fuzz::DecodeOutcome outcome;
        std::string metadata;
        try {
          for (std::size_t at = 0; at < body.size(); at += chunk)
            decoder.feed(body.substr(at, chunk), items);
          const ListMeta& meta = decoder.finish();
          metadata = "metadata " + meta.resource_version + " " + meta.continue_;
        } catch (const DecodeError&) {
          outcome.failed = true;
        }
        RG_FUZZ_CHECK(items.size() == decoder.items(),
                      "items() disagrees with the items handed over");
        for (const auto& item : items) {
          if (check) rg::fuzz::check_round_trip(*item);
          outcome.decoded.push_back(rg::fuzz::encoded(*item));
        }
        if (!metadata.empty()) outcome.decoded.push_back(std::move(metadata));
        return outcome;
      });
  return 0;
}
