// The proving engine (DESIGN.md §1–2): `count` jobs of `partitions` partition circuits,
// at most `concurrency` in flight; `partition_workers` synthesize partitions, bounded by
// their permits (held until the partition is in the GPU queue), the lookahead, the dispatch
// pacer and a host-memory budget charged with the real buffers (docs/engine.md); the GPU
// queue is ordered by (job, partition); `gpu_workers_per_device` workers per device run
// the GPU phase under the lock policy, b_g2_msm on the groth16 pool overlapping the next
// worker's GPU phase, then — on the worker (finalize = inline) or on a finalizer (split) —
// the epilogue and the dealloc policy. Every step is recorded in the TIMELINE and in
// stages.csv (each stage through one trace::StageScope).
//
// engine.cpp holds the queues, the workers and the job accounting; the parts it composes are
// units of their own: the lock policy (gpu_lock_policy.hpp), the dealloc policy
// (deallocator.hpp), the throttle (synthesis_throttle.hpp), the host budget and permits, the finalizer, the job's proofs
// (job_proofs.hpp) and summary.json (batch_summary.hpp).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/engine/backend.hpp"
#include "core/engine/batch_summary.hpp"
#include "core/engine/config.hpp"
#include "core/groth16/keys.hpp"
#include "core/r1cs/r1cs.hpp"
#include "core/trace/run_directory.hpp"
#include "core/trace/timeline.hpp"

namespace prooflab::engine {

struct EngineInputs {
  const EngineConfig& config;
  Backend& backend;
  const groth16::ProvingKey& pk;
  const r1cs::R1cs& cs;
  trace::TimelineRecorder& timeline;
  trace::RunDirectory* run_dir = nullptr;  // stages.csv and proofs/ when set
  // Called on the engine's threads as each job ends (serialised; keep it short).
  std::function<void(const JobReport&, std::size_t done, std::size_t total)> on_job_end;
  // Set to stop submitting jobs (SIGINT); jobs in flight still finish.
  const std::atomic<bool>* stop = nullptr;
  // When set, kept equal to the host bytes charged to the budget while the batch runs (the
  // `host_memory` counter source samples it).
  std::atomic<std::uint64_t>* host_charged_gauge = nullptr;
};

struct BatchResult {
  std::vector<JobReport> jobs;  // in completion order
  bool interrupted = false;
  nlohmann::json summary;       // summary.json of docs/run-directory.md
};

// What the config alone cannot check: the host-memory budget holds one partition of this
// circuit (and EngineConfig::validate). Throws ConfigError naming the key; run_batch calls it
// first, the harness before it creates the run directory.
void check_config_for_circuit(const EngineConfig& config, const r1cs::R1cs& cs);

BatchResult run_batch(const EngineInputs& in);

}  // namespace prooflab::engine
