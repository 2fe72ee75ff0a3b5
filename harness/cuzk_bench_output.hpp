// `prooflab batch --log-format cuzk` on stdout: the batch command's lines in the shape
// cuzk-bench's `batch` prints them (extern/cuzk/cuzk-bench/src/main.rs at curio e0294b0,
// spacing exact; docs/reference-logs.md), beside the daemon-format stderr of
// core/trace/cuzk_log_writer.hpp:
//
//     === Batch Benchmark ===            header: proof type (the circuit), count, concurrency
//       [i/N] COMPLETED — 1.2s (prove=800 ms, queue=3 ms)     one per proof, as it ends
//     === Batch Summary ===              total time, completed, failed, wall/prove time, throughput
//
// `i` is the proof's submission number, as cuzk-bench's; `prove=` is the daemon's
// gpu_compute_ms (the sum of the proof's GPU spans), 0 for a failed proof; `queue=` the
// time from submission to the first synthesis; the wall time runs from submission to the end.
//
// Header-only: both targets that compile batch_runner.cpp (the prooflab binary, the Python
// module) get it without listing another source.
#pragma once

#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <vector>

#include "core/engine/config.hpp"
#include "core/engine/engine.hpp"
#include "core/stats/sample.hpp"

namespace prooflab::harness {

class CuzkBenchOutput {
 public:
  void print_header(const engine::EngineConfig& cfg) const;
  // One proof has ended; `gpu_compute_ms` as CuzkLogWriter::gpu_compute_ms.
  void print_completion(const engine::JobReport& r, std::size_t total, std::int64_t gpu_compute_ms);
  // `summary`: the engine's (summary.json); the prove times are those printed per proof.
  void print_summary(const nlohmann::json& summary) const;

 private:
  std::vector<double> prove_s_;  // of completed proofs
};

inline void CuzkBenchOutput::print_header(const engine::EngineConfig& cfg) const {
  std::printf("=== Batch Benchmark ===\nproof type:  %s\ncount:       %u\nconcurrency: %u\n\n", cfg.circuit.c_str(),
              cfg.count, cfg.concurrency);
  std::fflush(stdout);
}

inline void CuzkBenchOutput::print_completion(const engine::JobReport& r, std::size_t total, std::int64_t gpu_compute_ms) {
  const long long prove_ms = r.ok ? static_cast<long long>(gpu_compute_ms) : 0;
  std::printf("  [%d/%zu] %s — %.1fs (prove=%lld ms, queue=%lld ms)\n", r.job + 1, total,
              r.ok ? "COMPLETED" : "FAILED", r.wall_s, prove_ms, static_cast<long long>(r.queue_s * 1e3));
  std::fflush(stdout);
  if (r.ok) prove_s_.push_back(static_cast<double>(prove_ms) / 1e3);
}

inline void CuzkBenchOutput::print_summary(const nlohmann::json& s) const {
  const double total_s = s["total_s"].get<double>();
  const int completed = s["completed"].get<int>();
  std::printf("\n=== Batch Summary ===\ntotal time:    %.1fs\ncompleted:     %d\nfailed:        %d\n", total_s,
              completed, s["failed"].get<int>());
  if (completed > 0) {
    const auto& wall = s["wall_s"];
    std::printf("wall time:     avg=%.1fs min=%.1fs max=%.1fs\n", wall["avg"].get<double>(),
                wall["min"].get<double>(), wall["max"].get<double>());
    if (const auto prove = stats::summarize(prove_s_, "completed proofs' prove time"))
      std::printf("prove time:    avg=%.1fs min=%.1fs max=%.1fs\n", prove->mean, prove->min, prove->max);
    std::printf("throughput:    %.3f proofs/min (%.1fs/proof)\n", completed / total_s * 60.0, total_s / completed);
  }
  std::fflush(stdout);
}


}  // namespace prooflab::harness
