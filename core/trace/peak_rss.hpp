// The process's peak resident set size over a run. Linux keeps the high-water mark (VmHWM in
// /proc/self/status) and lets a process reset it to the current RSS by writing "5" to
// /proc/self/clear_refs (proc(5), since Linux 4.0); so a run's peak excludes what came
// before it (parameter generation) but includes what stays resident through it (the key),
// as the reference's measured peak RSS does. Where the reset is refused the peak is the
// process's since it started (getrusage's ru_maxrss), and `scope` says so.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace prooflab::trace {

class PeakRss {
 public:
  // Resets the high-water mark (the run starts now).
  PeakRss();
  // Peak RSS in bytes since construction (scope() == "run") or since the process started
  // ("process"); nullopt when neither can be read.
  std::optional<std::uint64_t> bytes() const;
  const char* scope() const { return reset_ ? "run" : "process"; }

 private:
  bool reset_ = false;
};

}  // namespace prooflab::trace
