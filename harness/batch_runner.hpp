// One batch run from a validated config to a finished run directory: parameters (cached by
// shape), run.json, the engine with its TIMELINE, stages.csv, proofs, summary.json. Used by
// `prooflab batch` and by the experiment runners (every cell repetition is one such run).
#pragma once

#include <atomic>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "core/engine/config.hpp"
#include "harness/counters/options.hpp"

namespace prooflab::harness {

// What `batch` prints: prooflab's own lines on stdout, or the reference system's formats
// (cuzk-daemon's log on stderr, cuzk-bench's lines on stdout; docs/reference-logs.md).
enum class LogFormat { kProoflab, kCuzk };

struct BatchRunOptions {
  std::filesystem::path out_parent = "results/runs";  // the run directory is out_parent/run_id
  std::string run_id;                                  // empty: time, circuit, c, j
  // An existing run directory of this id is an error (its proofs would mix with the new
  // ones) unless this is set (--force): then it is removed first.
  bool replace_existing = false;
  std::filesystem::path param_dir;                     // empty: default_param_dir()
  bool print_jobs = true;     // one line per proof ([i/N] COMPLETED — ...)
  bool print_summary = true;  // the === Batch Summary === block
  LogFormat log_format = LogFormat::kProoflab;
  const std::atomic<bool>* stop = nullptr;  // set (e.g. by SIGINT) to stop submitting jobs
  counters::CounterOptions counters;        // counters.csv sources and period (docs/counters.md)
};

struct BatchRunOutcome {
  std::filesystem::path run_dir;
  nlohmann::json summary;
  std::string status;  // complete | failed | interrupted
  std::string error;   // why it failed: proofs that failed, files that could not be written
};

BatchRunOutcome run_batch_to_directory(const engine::EngineConfig& cfg, const BatchRunOptions& opts);

std::string default_run_id(const engine::EngineConfig& cfg);

}  // namespace prooflab::harness
