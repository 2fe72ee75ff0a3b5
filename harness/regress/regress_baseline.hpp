// The committed baseline of `prooflab regress` (results/baselines/*.json): which metrics are
// checked, how each is measured, its tolerance, the figures, and who changed them, when and
// why. The format is documented in docs/regress.md.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace prooflab::harness {

inline constexpr const char* kBaselineFormat = "prooflab-regress-baseline";
inline constexpr int kBaselineVersion = 1;

// Where a metric's figures come from.
//   callgrind   instructions of `prooflab workload <workload> --n <n>` under valgrind
//   workload    wall seconds of the same kernel, run natively (`--repeat`)
//   command     wall-clock: a `prooflab` command that writes a run directory; the figure is a
//               summary.json key (the ci-smoke throughput)
//   gbench      a Google Benchmark JSON given on the command line
//   run         run directories / experiment directories given on the command line
struct Metric {
  std::string name;    // "instructions.fp_mul", "ci-smoke.s_per_proof"
  std::string kind;    // deterministic | wallclock
  std::string source;  // callgrind | workload | command | gbench | run
  std::string unit;    // instructions, s, ns, proofs/min, ...
  bool higher_is_better = false;
  double tolerance = 0.01;              // relative; against the stored figures
  double tolerance_interleaved = 0.03;  // relative; wall-clock against a baseline build
  std::string statistic = "median";     // wall-clock: mean | median
  std::string device;                   // "" (CPU) or "cuda": checked only where a GPU is
  // callgrind, workload
  std::string workload;
  std::uint64_t n = 0;
  // workload, command: samples per arm and discarded warm-up runs per arm
  unsigned repetitions = 0, warmup = 0;
  unsigned repeat_per_process = 0;  // workload: kernel runs per process (median taken)
  // command: argv after the executable, run once per repetition and arm; {out} (a fresh
  // directory per arm), {run_id} (per repetition), {param_dir} (per arm) and {source_dir}
  // are replaced. result_dir (same placeholders, default {out}/{run_id}) is then a run
  // directory, whose summary.json gives one figure, or an experiment directory (index.csv),
  // whose complete runs of `cell` / `variant` give one figure each. `key` names the
  // summary.json value (dotted for nested objects).
  std::vector<std::string> command;
  std::string program = "prooflab";  // or a path in the arm's build dir: bench/prooflab_gpu_bench
  std::string result_dir;
  std::string key;
  // gbench (and command results that are benchmark JSON): benchmark key (Google Benchmark's
  // run_name; prooflab_gpu_bench's name/log_n/variant) and the field or counter to take
  // (default cpu_time; samples_ms for the GPU bench); workload: kernel_cpu_seconds (default)
  // or kernel_seconds (wall)
  std::string benchmark, field;
  // run: summary key as above; experiment directories: only these cells / variants (empty: all)
  std::string cell, variant;

  // The figures: a deterministic metric has `value`; a wall-clock one has `values` (one per
  // repetition) and `value` = their statistic.
  std::optional<double> value;
  std::vector<double> values;
  std::string result_hash;   // callgrind: the workload's result hash when the count was taken
  std::string commit, date;  // when these figures were measured
  // Wall-clock: the host and its load when they were (regress_host.hpp); null if unknown.
  nlohmann::json measured_on;
};

struct Baseline {
  std::string description;
  nlohmann::json updated = nlohmann::json::object();    // commit, dirty, date, reason, command, by
  nlohmann::json history = nlohmann::json::array();     // earlier `updated` blocks, newest last
  nlohmann::json toolchain = nlohmann::json::object();  // compiler, flags, libc, valgrind
  nlohmann::json host = nlohmann::json::object();       // cpu_model, cores, mem_bytes
  std::vector<Metric> metrics;

  Metric* find(const std::string& name);
};

// Throws std::runtime_error naming the file, the metric and the key on malformed input.
Baseline load_baseline(const std::filesystem::path& path);
void save_baseline(const std::filesystem::path& path, const Baseline& b);

// Keys in a fixed, readable order (what, how, tolerance, figures, when).
nlohmann::ordered_json metric_to_json(const Metric& m);
Metric metric_from_json(const nlohmann::json& j, const std::string& where);

// The metrics a new CPU baseline starts with: instruction counts of the five workloads and
// the ci-smoke wall-clock throughput.
std::vector<Metric> default_cpu_metrics();
// A wall-clock metric with its tolerances against stored figures and against an interleaved
// baseline build; the source-specific fields are the caller's to fill.
Metric wallclock_metric(std::string name, std::string source, std::string unit, double tolerance,
                        double tolerance_interleaved);

}  // namespace prooflab::harness
