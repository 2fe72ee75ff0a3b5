// Deterministic workloads for `prooflab regress`: one named kernel per run, fixed inputs from
// fixed seeds, one thread, so that the instructions it retires (counted by valgrind's
// callgrind between CALLGRIND_START_INSTRUMENTATION and CALLGRIND_STOP_INSTRUMENTATION) are
// the same number on every run of the same binary. Inputs are prepared before the counted
// region and the result is checked (hashed) after it, so only the kernel itself is counted.
//
// PROOFLAB_INJECT_SLOWDOWN=NAME:PERCENT[,NAME:PERCENT...] adds about PERCENT % extra work to
// the named workload's counted region (extra field multiplications in the harness, never in
// core/): the switch that proves the regression check catches a slowdown.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace prooflab::harness {

struct WorkloadSpec {
  std::string_view name;
  std::string_view what;     // one line: the kernel and its input
  std::uint64_t default_n;   // the size parameter (operations, or log2 of a size)
  std::string_view n_means;  // what n counts
};

// fp_mul, g1_add, msm_g1_2^12, ntt_2^14, prove_tiny.
std::span<const WorkloadSpec> workload_specs();
const WorkloadSpec& workload_spec(std::string_view name);  // throws naming the accepted names

struct WorkloadResult {
  std::string name;
  std::uint64_t n = 0;
  double inject_percent = 0;  // from PROOFLAB_INJECT_SLOWDOWN, 0 when not injected
  std::uint64_t inject_fp_muls = 0;
  std::string result_hash;    // FNV-1a of the kernel's output: the same inputs give the same hash
  double kernel_seconds = 0;  // wall time of the counted region (native runs only mean much)
  double kernel_cpu_seconds = 0;  // the same region's thread CPU time
};

// Runs the workload once (n = 0: its default), the kernel bracketed by callgrind's
// instrumentation requests (no-ops outside valgrind).
WorkloadResult run_workload(std::string_view name, std::uint64_t n);

// The slowdown PROOFLAB_INJECT_SLOWDOWN asks for this workload, in percent (0 if none);
// throws on a malformed value, naming it.
double injected_slowdown_percent(std::string_view workload);

// Compiler, optimisation, target flags and C library this binary was built with: instruction
// counts are only comparable between binaries with the same toolchain.
struct Toolchain {
  std::string compiler;  // e.g. "clang 14.0.6 (Debian Clang 14.0.6)"
  std::string flags;     // e.g. "optimized NDEBUG bmi2 adx x86_64"
  std::string libc;      // e.g. "glibc 2.36"
  std::string fingerprint() const { return compiler + " | " + flags + " | " + libc; }
};
Toolchain this_toolchain();

}  // namespace prooflab::harness
