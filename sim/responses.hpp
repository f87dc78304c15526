// Response building blocks shared by the handlers: Status and JSON responses, content
// negotiation (JSON, Table), and ChunkBuilder for streaming stored bytes without copying them.
#pragma once

#include <boost/json/object.hpp>

#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "client/rest/status.hpp"
#include "sim/http_types.hpp"
#include "sim/stored_object.hpp"

namespace rg::sim {

HttpResponse status_response(const client::Status& status);
HttpResponse json_response(int code, std::string body);
/// An answer that is not a stored object (access reviews, TokenRequest): brought into its kind's
/// wire form (sim/wire_form.hpp), as the API server encodes it from its Go type, then written.
HttpResponse object_response(int code, boost::json::object object);

/// What the client asked for in Accept.
struct Negotiation {
  bool table = false;
  std::string table_api_version = "meta.k8s.io/v1";
  std::string include_object = "Metadata";  ///< None, Metadata or Object (?includeObject=)
};

/// Reads Accept (and includeObject); JSON is what every answer falls back to. Throws 406 when
/// the client accepts neither JSON nor a Table (e.g. protobuf only).
Negotiation negotiate(const HttpRequest& request);

/// Throws 415 unless the request body is JSON or YAML (what kube-sim decodes).
void require_json_or_yaml_body(const HttpRequest& request);

/// Gathers the parts of one streamed chunk: views into stored objects (kept alive by pinning
/// them) and owned strings, written with one gathered write.
class ChunkBuilder {
 public:
  void add(std::string_view literal_or_pinned) {
    parts_.push_back(literal_or_pinned);
    size_ += literal_or_pinned.size();
  }
  void add_owned(std::string text) {
    owned_.push_back(std::move(text));
    add(owned_.back());
  }
  void pin(ObjectPtr object) { pinned_.push_back(std::move(object)); }
  std::size_t size() const { return size_; }
  const std::vector<std::string_view>& parts() const { return parts_; }
  std::string joined() const;
  void clear();

 private:
  std::vector<std::string_view> parts_;
  std::deque<std::string> owned_;
  std::vector<ObjectPtr> pinned_;
  std::size_t size_ = 0;
};

/// Chunks of about this size are flushed while streaming lists and initial watch events.
inline constexpr std::size_t kChunkBytes = std::size_t{256} * 1024;

}  // namespace rg::sim
