// Log lines in text and JSON, with and without structured fields.
#include <doctest/doctest.h>

#include <spdlog/sinks/ostream_sink.h>
#include <boost/json/parse.hpp>

#include <sstream>

#include "operator/logging.hpp"

namespace {

std::string capture(rg::op::LogFormat format, auto&& emit) {
  std::ostringstream out;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out);
  auto logger = std::make_shared<spdlog::logger>("test", sink);
  logger->set_formatter(rg::op::make_log_formatter(format));
  auto previous = spdlog::default_logger();
  spdlog::set_default_logger(logger);
  emit();
  spdlog::set_default_logger(previous);
  return out.str();
}

}  // namespace

TEST_CASE("text lines carry fields as key=value, quoting where needed") {
  const std::string line = capture(rg::op::LogFormat::kText, [] {
    rg::op::log(spdlog::level::info, "scaled up",
                {{"namespace", "shop"}, {"deployment", "web"}, {"action", "scale 3 -> 4"}});
  });
  CHECK(line.find(" info scaled up namespace=shop deployment=web action=\"scale 3 -> 4\"\n") !=
        std::string::npos);
}

TEST_CASE("JSON lines are valid JSON with each field as a key") {
  const std::string line = capture(rg::op::LogFormat::kJson, [] {
    rg::op::log(spdlog::level::warn, "odd \"quote\"\nnewline",
                {{"namespace", "shop"}, {"deployment", "web"}});
    spdlog::info("plain {} line", 1);
  });
  std::istringstream lines(line);
  std::string first, second;
  std::getline(lines, first);
  std::getline(lines, second);
  const auto a = boost::json::parse(first).as_object();
  CHECK(a.at("level").as_string() == "warning");
  CHECK(a.at("msg").as_string() == "odd \"quote\"\nnewline");
  CHECK(a.at("namespace").as_string() == "shop");
  CHECK(a.at("deployment").as_string() == "web");
  CHECK(a.at("ts").as_string().ends_with("Z"));
  const auto b = boost::json::parse(second).as_object();
  CHECK(b.at("msg").as_string() == "plain 1 line");
}

TEST_CASE("log formats are text or json") {
  CHECK(rg::op::parse_log_format("json") == rg::op::LogFormat::kJson);
  CHECK_THROWS_WITH(rg::op::parse_log_format("xml"), doctest::Contains("is not text or json"));
}
