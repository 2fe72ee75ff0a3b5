// A run directory as a Chrome trace-event JSON document (the format chrome://tracing and
// ui.perfetto.dev open), for `prooflab trace`. Processes and their threads (tracks):
//   GPU device d (TIMELINE)  one track per GPU worker: "job J p P" slices (GPU_START..GPU_END,
//                            the lock held) with NTT_H, BATCH_ADD, TAIL_MSM nested inside,
//                            reconstructed from their end time and dur_us; "lock wait"
//                            (LOCK_WAIT_START..GPU_START) and "prestage" slices before them
//   GPU device d (CUPTI)     one track per CUDA stream (kernels, copies, sets), plus
//                            device-wide, sync and NVTX tracks, when cupti.csv exists
//   CPU stages               synthesis, prep_msm, b_g2_msm, dealloc, throttle
//   Jobs                     an async span per job (JOB_SUBMIT..JOB_DONE/JOB_FAILED) and
//                            instants for PROOF_DONE and JOB_FAILED
//   Counters                 one counter track per counters.csv source/metric
// A track never holds two slices that overlap without nesting: intervals that do (the CPU
// stages of concurrent partitions, or two jobs on one worker in a broken run) are packed
// greedily into further lanes, shown as "<track> (2)", "<track> (3)", ...
// Timestamps are µs on the run epoch, as in the CSV files.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "harness/trace_export/trace_export_csv.hpp"

namespace prooflab::harness::trace_export {

struct Slice {
  double ts = 0, dur = 0;  // µs
  std::string name;
  nlohmann::json args = nlohmann::json::object();
  std::vector<Slice> children;  // nested inside [ts, ts + dur], not overlapping each other
};

// Lane index per slice (greedy interval partitioning, minimum lanes): slices in one lane do
// not overlap; one may start where the previous ended.
std::vector<int> pack_lanes(const std::vector<Slice>& slices);

struct TraceSummary {
  std::size_t events = 0, slices = 0, counter_points = 0, tracks = 0;
  std::vector<std::string> warnings;  // unmatched START/END events and the like
};

// Writes {"traceEvents": [...], "displayTimeUnit": "ms", "otherData": {...}}.
TraceSummary write_chrome_trace(const RunTables& run, std::ostream& out);

struct TraceFile {
  std::filesystem::path path;
  TraceSummary summary;
  std::vector<std::string> warnings;  // the run tables' and the trace's
};

// `prooflab trace` and prooflab.export_trace(): loads run_dir's tables and writes the trace to
// out (empty: run_dir/trace.json) through a temporary file, so a failed export leaves no
// half-written trace behind.
TraceFile export_chrome_trace(const std::filesystem::path& run_dir,
                              const std::filesystem::path& out = {});

}  // namespace prooflab::harness::trace_export
