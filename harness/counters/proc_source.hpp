// The `proc` source: operating-system counters that need no PMU.
//   tlb_shootdowns    1/s  /proc/interrupts TLB row summed over CPUs (system-wide): the
//                          cost of concurrent munmap() that intervention I1 is about
//   page_faults       1/s  minor + major faults of this process (/proc/self/stat), or of
//                          the process `pid` (/proc/<pid>/stat: an external prover)
//   context_switches  1/s  voluntary + involuntary, all threads of this process (getrusage;
//                          not measured for another process)
//   rss_bytes         B    resident set size (/proc/self/statm, /proc/<pid>/statm)
#pragma once

#include <optional>
#include <string>

#include "harness/counters/source.hpp"

namespace prooflab::harness::counters {

class ProcSource final : public CounterSource {
 public:
  // proc_root: "/proc" (tests point it at a fixture directory); the process files are
  // read from <proc_root>/self, or <proc_root>/<pid> when pid is not 0.
  explicit ProcSource(std::string proc_root = "/proc", int pid = 0)
      : root_(std::move(proc_root)), process_(pid == 0 ? "self" : std::to_string(pid)), pid_(pid) {}
  const char* name() const override { return "proc"; }
  SourceStatus start(std::int64_t now_ns) override;
  void sample(std::int64_t now_ns, std::vector<Reading>& out) override;
  SourceStatus status() const override { return status_; }

 private:
  struct Totals {
    std::optional<std::uint64_t> tlb, faults, switches, rss_bytes;
  };
  Totals read_totals() const;

  std::string root_;
  std::string process_;  // "self" or the pid
  int pid_ = 0;
  SourceStatus status_;
  Totals last_;
  std::int64_t last_ns_ = 0;
  long page_size_ = 4096;
};

}  // namespace prooflab::harness::counters
