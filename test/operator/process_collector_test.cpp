// process_* metrics: read from a fake /proc/self, and from the real one.
#include <doctest/doctest.h>

#include <prometheus/metric_family.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "operator/process_collector.hpp"

namespace {

std::map<std::string, double> values(const rg::op::ProcessCollector& collector) {
  std::map<std::string, double> out;
  for (const auto& family : collector.Collect()) {
    const auto& metric = family.metric.at(0);
    out[family.name] =
        family.type == prometheus::MetricType::Counter ? metric.counter.value : metric.gauge.value;
  }
  return out;
}

}  // namespace

TEST_CASE("process metrics come from /proc/self/stat, fd and limits") {
  const auto dir = std::filesystem::temp_directory_path() / ("rg-proc-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir / "fd");
  for (const char* fd : {"0", "1", "2"}) std::ofstream(dir / "fd" / fd) << "";
  // A command name with spaces and parentheses must not shift the fields.
  std::ofstream(dir / "stat") << "42 (my (weird) cmd) S 1 42 42 0 -1 4194560 100 0 0 0 "
                                 "250 150 0 0 20 0 3 0 1000 123456789 2000 18446744073709551615\n";
  std::ofstream(dir / "limits")
      << "Limit                     Soft Limit           Hard Limit           Units\n"
         "Max open files            1024                 524288               files\n";
  const auto v = values(rg::op::ProcessCollector(dir.string()));
  const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  CHECK(v.at("process_cpu_seconds_total") == doctest::Approx(400 / ticks));
  CHECK(v.at("process_virtual_memory_bytes") == 123456789);
  CHECK(v.at("process_resident_memory_bytes") ==
        2000.0 * static_cast<double>(sysconf(_SC_PAGESIZE)));
  CHECK(v.at("process_open_fds") == 3);
  CHECK(v.at("process_max_fds") == 1024);
  CHECK(v.count("process_start_time_seconds") == 1);
  std::filesystem::remove_all(dir);
}

TEST_CASE("the real process reports plausible values") {
  const auto v = values(rg::op::ProcessCollector());
  CHECK(v.at("process_resident_memory_bytes") > 0);
  CHECK(v.at("process_open_fds") >= 3);
  CHECK(v.at("process_start_time_seconds") > 1.6e9);
}
