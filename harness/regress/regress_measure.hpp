// Measuring the figures of `prooflab regress`: instruction counts of the workloads under
// callgrind, wall-clock repetitions of this build (interleaved with a build of the baseline
// commit when one is given), and figures read from files given on the command line (Google
// Benchmark JSON, run directories, experiment directories).
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/regress/regress_baseline.hpp"

namespace prooflab::harness {

struct Measurement {
  bool measured = false;
  std::string skipped;                 // why not, when not measured
  std::vector<double> now;             // one sample (a count) or one per repetition
  std::vector<double> baseline_build;  // the same, from the baseline build (interleaved)
  std::string result_hash, baseline_build_result_hash;  // callgrind workloads
  std::string method;  // how the figures were obtained, for the table
  std::string note;
  std::vector<std::string> outputs;  // per run: its output (run directory or stdout log)
  nlohmann::json conditions;  // wall-clock: host and load around it (regress_host.hpp)
};

struct MeasureContext {
  std::filesystem::path self_exe;     // this `prooflab`
  std::filesystem::path against_exe;  // the baseline build's `prooflab`, empty if none
  bool against_has_workload = false;  // it knows `prooflab workload` (counts comparable)
  std::filesystem::path tmp;          // scratch directory for outputs
  std::string source_dir;             // {source_dir} in commands
  unsigned jobs = 2;                  // concurrent callgrind runs
  bool verbose = false;
  // Names one measurement ("first", "confirmation"): each has its own output directories
  // and run ids, so a second measurement is independent (a `matrix` command given the
  // first one's directory would resume the complete experiment and only re-read it).
  std::string pass = "first";
};

// The valgrind version string ("valgrind-3.19.0"); throws when valgrind cannot be run.
std::string valgrind_version();

// Instruction counts of every callgrind metric (run `jobs` at a time; the baseline build's
// counts too when it has the workload command).
std::map<std::string, Measurement> measure_instructions(const std::vector<const Metric*>& metrics,
                                                        const MeasureContext& ctx);

// Wall-clock repetitions of a `workload` or `command` metric: warm-up runs discarded, then
// `repetitions` per arm, arms alternated A B B A A B ... so that drift hits both alike.
Measurement measure_wallclock(const Metric& metric, const MeasureContext& ctx);

// Files and directories given on the command line.
struct Inputs {
  // benchmark JSON (Google Benchmark, prooflab_gpu_bench): benchmark_key -> its entries
  std::map<std::string, std::vector<nlohmann::json>> gbench;
  std::vector<std::string> gbench_files;
  // run: one summary.json per run, with the cell / variant of experiment rows
  struct RunSummary {
    std::filesystem::path dir;
    std::string cell, variant;
    nlohmann::json summary;
  };
  std::vector<RunSummary> runs;
  std::vector<std::string> run_sources;
};
Inputs read_inputs(const std::vector<std::string>& paths);

Measurement measurement_from_inputs(const Metric& metric, const Inputs& inputs);

// The key of an entry of benchmark JSON: Google Benchmark's run_name, or for
// prooflab_gpu_bench "name/log_n/variant". Samples of `field` from the entries of one key
// (times in ns for cpu_time / real_time; every element for an array such as samples_ms).
std::string benchmark_key(const nlohmann::json& entry);
std::vector<double> bench_samples(const std::vector<nlohmann::json>& entries,
                                  const std::string& field, const std::string& where);

// A value of a summary.json by dotted key ("wall_s.avg"); nullopt when absent or not a number.
std::optional<double> summary_value(const nlohmann::json& summary, const std::string& dotted_key);

}  // namespace prooflab::harness
