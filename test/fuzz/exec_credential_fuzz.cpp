// Fuzzes what an exec credential plugin prints (ExecCredential::parse_output). The first byte
// picks the configured apiVersion. Properties: bad output fails only with ExecPluginError; good
// output yields a token or a complete certificate, and written back as an ExecCredential it
// reads the same (expiry to the microsecond, as RFC 3339 carries it).
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

#include "client/config/exec_credential.hpp"
#include "client/model/time.hpp"
#include "test/fuzz/fuzz_support.hpp"

namespace {

using namespace rg::client;

std::string written_back(const ExecCredential::Credentials& credentials,
                         const std::string& api_version) {
  boost::json::object status;
  if (!credentials.token.empty()) status["token"] = credentials.token;
  if (credentials.certificate) {
    status["clientCertificateData"] = credentials.certificate->cert_pem;
    status["clientKeyData"] = credentials.certificate->key_pem;
  }
  if (credentials.expiry) status["expirationTimestamp"] = format_micro_time(*credentials.expiry);
  boost::json::object output{
      {"apiVersion", api_version}, {"kind", "ExecCredential"}, {"status", std::move(status)}};
  return boost::json::serialize(output);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  ExecConfig config;
  config.api_version = (data[0] & 1) != 0 ? "client.authentication.k8s.io/v1beta1"
                                          : "client.authentication.k8s.io/v1";
  config.command = "fuzz-plugin";
  ExecCredential plugin(config);
  ExecCredential::Credentials credentials;
  try {
    credentials = plugin.parse_output(std::string(rg::fuzz::as_text(data + 1, size - 1)));
  } catch (const ExecPluginError&) {
    return 0;
  }
  RG_FUZZ_CHECK(!credentials.token.empty() || credentials.certificate,
                "accepted output with neither a token nor a certificate");
  std::string again = written_back(credentials, config.api_version);
  ExecCredential::Credentials reread = plugin.parse_output(again);
  RG_FUZZ_CHECK(reread.token == credentials.token, again);
  RG_FUZZ_CHECK((reread.certificate == nullptr) == (credentials.certificate == nullptr), again);
  RG_FUZZ_CHECK(reread.expiry.has_value() == credentials.expiry.has_value(), again);
  if (credentials.expiry) {
    RG_FUZZ_CHECK(format_micro_time(*reread.expiry) == format_micro_time(*credentials.expiry),
                  again);
  }
  return 0;
}
