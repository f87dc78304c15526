// ProtobufError: a Kubernetes protobuf body that cannot be decoded, naming the field path, the
// byte offset and the problem.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace rg::client::protobuf {

class ProtobufError : public std::runtime_error {
 public:
  ProtobufError(std::string problem, std::size_t offset, std::string path = {});

  const std::string& problem() const { return problem_; }
  std::size_t offset() const { return offset_; }
  const std::string& path() const { return path_; }

  /// The same error one level up: `field` is prepended to the path.
  ProtobufError within(const std::string& field) const;

 private:
  std::string problem_;
  std::size_t offset_;
  std::string path_;
};

}  // namespace rg::client::protobuf
