// Verdicts of `prooflab regress`, one row per metric.
//
// Deterministic counts (callgrind instructions) are compared exactly: the same binary on the
// same inputs executes the same instructions, so there is no noise to model and any
// difference is a real change in the code that ran. The tolerance (1 %) is there only so that
// incidental code-generation changes do not churn the baseline.
//
// Wall-clock figures go through the statistics of analysis/prooflab_analysis/abtest.py
// (percentile bootstrap CI of the relative change, Mann-Whitney U), called through
// `python -m prooflab_analysis.regress_stats`, with the metric's tolerance as the minimum
// effect: a regression needs the CI wholly on the bad side of 0, p < 0.05 *and* a change of
// at least the tolerance.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "harness/regress/regress_baseline.hpp"
#include "harness/regress/regress_measure.hpp"

namespace prooflab::harness {

// Final verdicts. Only kRegression makes `regress` exit non-zero.
inline constexpr const char* kPass = "pass";
inline constexpr const char* kImproved = "improved";
inline constexpr const char* kRegression = "REGRESSION";
inline constexpr const char* kInconclusive = "inconclusive";
inline constexpr const char* kIncomparable = "incomparable";
inline constexpr const char* kSkipped = "skipped";

struct Row {
  std::string metric, kind, unit, method;
  bool higher_is_better = false;
  double tolerance = 0;
  std::optional<double> baseline, now, change, ci_low, ci_high, p_value;
  std::size_t n_baseline = 0, n_now = 0;
  std::vector<double> baseline_samples, now_samples;  // what the statistics saw (wall-clock)
  nlohmann::json confirmation;  // the second measurement of a timed regression, or null
  std::vector<std::string> outputs;  // where the measured runs wrote (run directories, logs)
  std::string verdict;          // one of the constants above
  std::string detail;           // e.g. "identical", "within tolerance", abtest's verdict
  std::string note;
};

nlohmann::json row_to_json(const Row& r);

// A row for a metric that was not measured or cannot be compared.
Row row_without_comparison(const Metric& m, const std::string& verdict, const std::string& why);

// Exact comparison of a count with the baseline count.
Row compare_count(const Metric& m, double baseline, double now, const std::string& method);

struct StatRequest {
  const Metric* metric;
  std::vector<double> baseline, now;
  double min_effect;
  std::string method, note;
  std::vector<std::string> outputs;
};

// One call of the Python statistics for all wall-clock rows. python: the interpreter
// (prooflab's .venv by default); throws with its stderr when it fails.
std::vector<Row> compare_samples(const std::vector<StatRequest>& requests,
                                 const std::string& python, const std::string& analysis_dir,
                                 const std::string& tmp_dir);

}  // namespace prooflab::harness
