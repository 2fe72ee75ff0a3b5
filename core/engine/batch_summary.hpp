// summary.json of docs/run-directory.md: the analysis of a batch's job reports (throughput,
// wall and prove times, latency percentiles) with the run's memory and per-device busy
// figures. Written last, after every job has ended.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/trace/device_busy.hpp"

namespace prooflab::engine {

struct JobReport {
  int job = 0;
  bool ok = false;
  std::string reason;  // why it failed
  double wall_s = 0;   // JOB_SUBMIT .. JOB_DONE / JOB_FAILED
  double queue_s = 0;  // JOB_SUBMIT .. first SYNTH_START
  double prove_s = 0;  // first SYNTH_START .. end
};

// What the engine measured besides the job reports.
struct BatchFigures {
  std::uint32_t count = 0;  // jobs asked for
  bool interrupted = false;
  std::int64_t start_us = 0, end_us = 0;  // the batch, on the TIMELINE's clock
  std::uint64_t timeline_events = 0;
  std::optional<std::uint64_t> peak_rss_bytes;
  std::string peak_rss_scope;
  std::uint64_t peak_host_charged_bytes = 0, host_mem_budget_bytes = 0, partition_footprint_bytes = 0;
  // The backend's estimate of one partition's device memory (Backend::partition_vram_bytes),
  // what two_lock's pre-staging admits on, and each device's budget.
  std::uint64_t partition_vram_bytes = 0;
  std::map<int, std::uint64_t> vram_budget_bytes;
  // Per-device busy (core/trace/device_busy.hpp): each device's lock-held spans, the run
  // window (none when no job was submitted), and why there is no kernel busy.
  std::map<int, std::vector<stats::Span>> gpu_held_us;
  int devices = 1;
  std::optional<stats::Span> busy_window_us;
  // First JOB_SUBMIT .. last JOB_DONE of a completed job: the window s_per_proof and
  // throughput_proofs_per_min divide (the analysis's, prooflab_analysis.metrics.throughput);
  // none when no job completed.
  std::optional<stats::Span> completed_window_us;
  std::string no_kernels_reason;
  // CPU seconds per pool (summary.json cpu_seconds_by_pool, docs/run-directory.md).
  std::map<std::string, double> cpu_seconds_by_pool;
};

nlohmann::json batch_summary(const std::vector<JobReport>& reports, const BatchFigures& figures);

}  // namespace prooflab::engine
