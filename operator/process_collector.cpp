// process_* metrics from /proc (see process_collector.hpp).
#include "operator/process_collector.hpp"

#include <prometheus/metric_family.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>

namespace rg::op {

namespace {

prometheus::MetricFamily gauge(std::string name, std::string help, double value,
                               prometheus::MetricType type = prometheus::MetricType::Gauge) {
  prometheus::ClientMetric metric;
  if (type == prometheus::MetricType::Counter) {
    metric.counter.value = value;
  } else {
    metric.gauge.value = value;
  }
  return {std::move(name), std::move(help), type, {metric}};
}

struct Stat {
  double utime_ticks = 0, stime_ticks = 0, start_ticks = 0, vsize = 0, rss_pages = 0;
  bool ok = false;
};

// /proc/self/stat: fields after the parenthesised command name, which may itself hold spaces.
Stat read_stat(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  Stat stat;
  if (!std::getline(in, line)) return stat;
  const auto close = line.rfind(')');
  if (close == std::string::npos) return stat;
  std::istringstream fields(line.substr(close + 2));
  std::vector<std::string> f{std::istream_iterator<std::string>(fields), {}};
  // f[0] is field 3 (state); utime=14, stime=15, starttime=22, vsize=23, rss=24.
  if (f.size() < 22) return stat;
  stat.utime_ticks = std::stod(f[11]);
  stat.stime_ticks = std::stod(f[12]);
  stat.start_ticks = std::stod(f[19]);
  stat.vsize = std::stod(f[20]);
  stat.rss_pages = std::stod(f[21]);
  stat.ok = true;
  return stat;
}

double boot_time_seconds() {
  std::ifstream in("/proc/stat");
  std::string key;
  double value = 0;
  while (in >> key) {
    if (key == "btime" && in >> value) return value;
    in.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  }
  return 0;
}

double open_fds(const std::string& proc_self) {
  std::error_code ec;
  double count = 0;
  for (std::filesystem::directory_iterator it(proc_self + "/fd", ec), end; !ec && it != end;
       it.increment(ec)) {
    ++count;
  }
  return count;
}

double max_fds(const std::string& proc_self) {
  std::ifstream in(proc_self + "/limits");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("Max open files", 0) == 0) {
      std::istringstream fields(line.substr(14));
      double soft = 0;
      if (fields >> soft) return soft;
    }
  }
  return 0;
}

}  // namespace

ProcessCollector::ProcessCollector(std::string proc_self) : proc_self_(std::move(proc_self)) {}

std::vector<prometheus::MetricFamily> ProcessCollector::Collect() const {
  std::vector<prometheus::MetricFamily> families;
  const Stat stat = read_stat(proc_self_ + "/stat");
  if (stat.ok) {
    const auto ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
    const auto page = static_cast<double>(sysconf(_SC_PAGESIZE));
    families.push_back(
        gauge("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.",
              (stat.utime_ticks + stat.stime_ticks) / ticks, prometheus::MetricType::Counter));
    families.push_back(gauge("process_resident_memory_bytes", "Resident memory size in bytes.",
                             stat.rss_pages * page));
    families.push_back(
        gauge("process_virtual_memory_bytes", "Virtual memory size in bytes.", stat.vsize));
    families.push_back(gauge("process_start_time_seconds",
                             "Start time of the process since unix epoch in seconds.",
                             boot_time_seconds() + stat.start_ticks / ticks));
  }
  families.push_back(
      gauge("process_open_fds", "Number of open file descriptors.", open_fds(proc_self_)));
  families.push_back(
      gauge("process_max_fds", "Maximum number of open file descriptors.", max_fds(proc_self_)));
  return families;
}

}  // namespace rg::op
