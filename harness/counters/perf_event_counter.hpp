// Counting a PMU event of sysfs (perf_pmu.hpp) through perf_event_open: system-wide on one
// CPU, as uncore and RAPL events must be counted, read as the kernel's 64-bit count.
// PerfCounters is the seam between a source's arithmetic and the kernel, so that the sources
// are tested on recorded counts (tests/cpp/counters_energy_test.cpp) where no PMU exists.
#pragma once

#include <cstdint>
#include <string>

#include "harness/counters/perf_pmu.hpp"

namespace prooflab::harness::counters {

// perf_event_open(ev, pid -1, cpu): a file descriptor, or -1 with *why set to
// "perf_event_open(<pmu>/<event>/, cpu N) failed: <strerror> (errno E)", plus
// kernel.perf_event_paranoid when the kernel refused (EACCES, EPERM).
int open_perf_event(const PmuEvent& ev, int cpu, std::string* why);

class PerfCounters {
 public:
  virtual ~PerfCounters() = default;
  // A handle >= 0, or -1 with *why set.
  virtual int open(const PmuEvent& ev, int cpu, std::string* why) = 0;
  // The count of the handle; false (errno set) when it cannot be read.
  virtual bool read(int handle, std::uint64_t& count) = 0;
  virtual void close(int handle) = 0;
};

// The kernel's: open_perf_event, read(2), close(2).
class KernelPerfCounters final : public PerfCounters {
 public:
  int open(const PmuEvent& ev, int cpu, std::string* why) override {
    return open_perf_event(ev, cpu, why);
  }
  bool read(int handle, std::uint64_t& count) override;
  void close(int handle) override;
};

}  // namespace prooflab::harness::counters
