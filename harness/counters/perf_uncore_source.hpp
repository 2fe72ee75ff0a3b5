// The `perf_uncore` source: DRAM read+write bandwidth from the memory controllers' uncore
// PMUs through perf_event_open (metric `dram_bandwidth`, GB/s, whole machine).
//
// Known event pairs (read, write), resolved through sysfs with their scale and unit:
//   uncore_imc[_N]                 cas_count_read / cas_count_write   (Intel)
//   uncore_imc_free_running[_N]    data_read / data_write             (Intel client, SPR+)
// AMD's amd_df / amd_umc PMUs name no DRAM events in sysfs (perf takes their codes from its
// JSON tables); they are reported as present but not decoded. Unavailable, with the reason
// (which PMUs exist, or perf_event_open's errno text), wherever none of these opens.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "harness/counters/perf_pmu.hpp"
#include "harness/counters/source.hpp"

namespace prooflab::harness::counters {

class PerfUncoreSource final : public CounterSource {
 public:
  explicit PerfUncoreSource(std::filesystem::path sysfs_root = "/sys")
      : root_(std::move(sysfs_root)) {}
  ~PerfUncoreSource() override;
  const char* name() const override { return "perf_uncore"; }
  SourceStatus start(std::int64_t now_ns) override;
  void sample(std::int64_t now_ns, std::vector<Reading>& out) override;
  SourceStatus status() const override { return status_; }
  void stop() override;

 private:
  struct Counter {
    int fd = -1;
    double bytes_per_count = 0;
    std::uint64_t last = 0;
  };
  // Opens one event on every CPU of its PMU's cpumask; returns the error text or "".
  std::string open_event(const PmuEvent& ev);
  bool read_bytes(double& bytes);

  std::filesystem::path root_;
  std::vector<Counter> counters_;
  SourceStatus status_;
  std::int64_t last_ns_ = 0;
};

}  // namespace prooflab::harness::counters
