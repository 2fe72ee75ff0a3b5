#include "core/engine/batch_summary.hpp"

#include "core/stats/sample.hpp"

namespace prooflab::engine {
namespace {

nlohmann::json avg_min_max(const std::vector<double>& v, const char* what) {
  const auto s = stats::summarize(v, what);
  if (!s) return {{"avg", nullptr}, {"min", nullptr}, {"max", nullptr}};
  return {{"avg", s->mean}, {"min", s->min}, {"max", s->max}};
}

nlohmann::json quantile_or_null(const std::vector<double>& v, double q) {
  const auto p = stats::quantile(v, q, "completed jobs' wall_s");
  return p ? nlohmann::json(*p) : nlohmann::json(nullptr);
}

}  // namespace

nlohmann::json batch_summary(const std::vector<JobReport>& reports, const BatchFigures& f) {
  std::size_t completed = 0;
  std::vector<double> wall, prove;  // of the completed jobs
  for (const auto& r : reports) {
    if (!r.ok) continue;
    ++completed;
    wall.push_back(r.wall_s);
    prove.push_back(r.prove_s);
  }
  const double total_s = static_cast<double>(f.end_us - f.start_us) / 1e6;
  // One definition of throughput, the analysis's: completed proofs over first JOB_SUBMIT ..
  // last completed JOB_DONE (total_s adds the engine's start-up and its final drain).
  const double window_s =
      f.completed_window_us ? static_cast<double>(f.completed_window_us->end - f.completed_window_us->start) / 1e6 : 0;
  const bool rated = completed > 0 && window_s > 0;
  nlohmann::json out = {
      {"count", f.count},
      {"completed", completed},
      {"failed", reports.size() - completed},
      {"interrupted", f.interrupted},
      {"total_s", total_s},
      {"wall_s", avg_min_max(wall, "completed jobs' wall_s")},
      {"prove_s", avg_min_max(prove, "completed jobs' prove_s")},
      {"completed_window_s", rated ? nlohmann::json(window_s) : nlohmann::json(nullptr)},
      {"throughput_proofs_per_min", rated ? static_cast<double>(completed) / window_s * 60 : 0.0},
      {"s_per_proof", rated ? nlohmann::json(window_s / static_cast<double>(completed)) : nlohmann::json(nullptr)},
      {"latency_s", {{"p50", quantile_or_null(wall, 0.5)}, {"p95", quantile_or_null(wall, 0.95)}}},
      {"timeline_events", f.timeline_events},
      {"peak_rss_bytes", f.peak_rss_bytes ? nlohmann::json(*f.peak_rss_bytes) : nlohmann::json(nullptr)},
      {"peak_rss_scope", f.peak_rss_scope},
      {"peak_host_charged_bytes", f.peak_host_charged_bytes},
      {"host_mem_budget_bytes", f.host_mem_budget_bytes},
      {"partition_footprint_bytes", f.partition_footprint_bytes},
      {"partition_vram_bytes", f.partition_vram_bytes},
      {"cpu_seconds_by_pool", f.cpu_seconds_by_pool}};
  out.update(trace::device_busy_summary(f.gpu_held_us, f.devices, f.busy_window_us, f.no_kernels_reason));
  for (const auto& [device, bytes] : f.vram_budget_bytes)
    if (auto& entry = out["devices"][std::to_string(device)]; entry.is_object()) entry["vram_budget_bytes"] = bytes;
  return out;
}

}  // namespace prooflab::engine
