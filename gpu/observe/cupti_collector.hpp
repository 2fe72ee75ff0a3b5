// The CUPTI activity collector of a run: CUDA kernels, copies, memsets, synchronisations and
// NVTX ranges, timestamped on CLOCK_MONOTONIC (the TIMELINE's clock), written to cupti.csv
// as CUPTI hands over its buffers (docs/gpu.md "Observability", docs/run-directory.md).
//
// libcupti is loaded at run time (dlopen), so no binary needs it to start: without the
// library, without a GPU, or when CUPTI refuses, the collector is inactive and status_json()
// says why. One collection at a time per process (CUPTI's activity API is process-wide).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/stats/interval_union.hpp"

namespace prooflab::gpu::observe {

struct CuptiOptions {
  // Where libcupti is looked for, in order; empty = default_cupti_library_candidates().
  std::vector<std::string> library_candidates;
  std::size_t buffer_bytes = 8u << 20;  // per activity buffer handed to CUPTI
  // CUPTI's worker delivers full buffers at least this often (ms; 0 = CUPTI's heuristics),
  // so that a killed run loses at most the records of the last period.
  std::uint32_t flush_period_ms = 1000;
  bool markers = true;  // NVTX ranges, with libcupti as the NVTX injection
};

// $PROOFLAB_CUPTI_LIBRARY, libcupti.so.13 (loader path), $CUDA_HOME/{extras/CUPTI/lib64,
// lib64}, /usr/local/cuda/{extras/CUPTI/lib64,lib64}, the running executable's directory,
// then libcupti.so.
std::vector<std::string> default_cupti_library_candidates();

class CuptiCollector {
 public:
  // Starts collecting when it can; never throws for a missing library, GPU or CUPTI support.
  // cupti.csv is created only when collection starts. epoch_ns: the run epoch
  // (TimelineRecorder::epoch_ns()), on CLOCK_MONOTONIC.
  CuptiCollector(std::filesystem::path csv_path, std::int64_t epoch_ns, CuptiOptions opts = {});
  ~CuptiCollector();  // stop()
  CuptiCollector(const CuptiCollector&) = delete;
  CuptiCollector& operator=(const CuptiCollector&) = delete;

  bool active() const;
  // Delivers every buffer (cuptiActivityFlushAll, forced), disables the activity kinds,
  // writes what was pending (ranges still open run to now) and closes cupti.csv. Idempotent.
  void stop();

  // run.json's counters.cupti: {"status": "used"|"unavailable", "reason", and when used
  // "library", "version", "markers", "rows", "records" (per kind and the anomalies),
  // "dropped" (cuptiActivityGetNumDroppedRecords, summed)}.
  nlohmann::json status_json() const;
  // One line for the run's stdout, e.g. "cupti: 2214 rows (KERNEL 2000, ...), 0 dropped".
  std::string summary() const;
  std::uint64_t dropped() const;
  // The KERNEL rows written so far per device, as ns on the run epoch (summary.json's
  // kernel busy, core/trace/device_busy.hpp over core/stats/interval_union.hpp).
  std::map<int, std::vector<stats::Span>> kernel_spans_ns() const;

  struct Impl;  // defined in the .cpp (CUPTI's callbacks reach the active one)

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace prooflab::gpu::observe
