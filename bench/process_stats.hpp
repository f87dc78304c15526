// What the benchmarks report about the process itself: elapsed time, CPU time, resident memory,
// malloc's bytes in use and whether its heap is in huge pages. Header-only, for bench/ executables.
#pragma once

#include <fcntl.h>
#include <malloc.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <fstream>
#include <string>

namespace rg::bench {

using Clock = std::chrono::steady_clock;

/// Wall seconds since `start`.
inline double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// CPU seconds (user + system) of the whole process so far: kube-sim's threads too.
inline double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

/// CPU seconds (user + system) of the calling thread so far.
inline double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

/// Resident set size now, in bytes; 0 when /proc does not say. One pread of /proc/self/statm on
/// a descriptor kept open: the sync bench samples it every millisecond on the thread whose CPU it
/// measures (an ifstream per sample cost ~4% of the informer's CPU there).
inline std::size_t resident_bytes() {
  static const int statm = ::open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  char text[128];
  const ssize_t read = statm < 0 ? -1 : ::pread(statm, text, sizeof text - 1, 0);
  if (read <= 0) return 0;
  text[read] = '\0';
  char* end = nullptr;
  std::strtoull(text, &end, 10);  // total size
  const unsigned long long resident = std::strtoull(end, nullptr, 10);
  return static_cast<std::size_t>(resident) * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

/// The peak resident set size so far (VmHWM), in bytes; 0 when /proc does not say.
inline std::size_t peak_resident_bytes() {
  std::ifstream status("/proc/self/status");
  std::string field;
  while (status >> field) {
    if (field == "VmHWM:") {
      std::size_t kib = 0;
      status >> kib;
      return kib * 1024;
    }
  }
  return 0;
}

/// Bytes the process has allocated from malloc and not freed.
inline std::size_t heap_in_use() {
  const struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;
}

/// Whether malloc's heap is in transparent huge pages, as the image runs replica-guard
/// (GLIBC_TUNABLES=glibc.malloc.hugetlb=1, honoured when the kernel's THP mode is "madvise" or
/// "always"): fresh heap then faults in 2 MiB at a time, not 4 KiB. For the benches' headers.
inline std::string malloc_huge_pages() {
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  const bool asked = tunables != nullptr &&
                     std::string(tunables).find("glibc.malloc.hugetlb=1") != std::string::npos;
  std::ifstream enabled("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string modes;
  std::getline(enabled, modes);
  const auto open = modes.find('['), close = modes.find(']');
  const std::string mode = open != std::string::npos && close > open
                               ? modes.substr(open + 1, close - open - 1)
                               : "unknown";
  if (!asked)
    return "malloc's heap in 4 KiB pages (GLIBC_TUNABLES=glibc.malloc.hugetlb=1 not set; the "
           "image sets it)";
  if (mode == "never" || mode == "unknown")
    return "GLIBC_TUNABLES=glibc.malloc.hugetlb=1, but the kernel's THP mode is " + mode +
           ": 4 KiB pages";
  return "malloc's heap in transparent huge pages (GLIBC_TUNABLES=glibc.malloc.hugetlb=1, THP " +
         mode + "), as the image runs it";
}

}  // namespace rg::bench
