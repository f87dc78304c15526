// Fuzzes WatchDecoder<T>: the first byte picks T and a chunk size, the rest is a watch body.
// Properties: feeding the body whole or in small chunks gives the same events (and the same
// failure); bad input fails only with DecodeError; every decoded object round-trips.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "client/watch/watch_decoder.hpp"
#include "test/fuzz/object_types.hpp"

using namespace rg::client;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  rg::fuzz::compare_whole_and_chunked(
      data, size, []<class T>(std::string_view body, std::size_t chunk, bool check) {
        WatchDecoder<T> decoder;
        std::vector<WatchEvent<T>> events;
        rg::fuzz::DecodeOutcome outcome;
        try {
          for (std::size_t at = 0; at < body.size(); at += chunk)
            decoder.feed(body.substr(at, chunk), events);
          decoder.finish();
        } catch (const DecodeError&) {
          outcome.failed = true;
        }
        for (const auto& event : events) {
          std::string text(to_string(event.type));  // "TYPE object-json"
          if (event.object) {
            if (check) rg::fuzz::check_round_trip(*event.object);
            text += " " + rg::fuzz::encoded(*event.object);
          }
          if (event.status) text += " " + rg::fuzz::check_reparses(to_json(*event.status));
          outcome.decoded.push_back(std::move(text));
        }
        return outcome;
      });
  return 0;
}
