// The summary statistics of a sample that prooflab's C++ side prints or writes: summary.json's
// wall/prove avg and latency p50/p95, the median figures of `gpu-phase`, `regress` and
// prooflab_gpu_bench. The definition is analysis/prooflab_analysis/stats.py's (docs/
// architecture.md "Statistics"); tests/python/test_stats_agree.py feeds the same samples to
// both through the `prooflab.stats` binding and checks them against values it works out itself.
//
// * quantile (q in [0, 1]): numpy's default "linear" rule (Hyndman & Fan type 7): for sorted
//   x_0..x_{n-1}, h = (n - 1) q, value = x_floor(h) + (h - floor(h)) (x_floor(h)+1 - x_floor(h)).
//   The median is the 0.5 quantile (the mean of the two middle values for even n).
// * mean: the sum over n; sample_sd: the standard deviation with n - 1 in the denominator.
// * an empty sample has none of them (nullopt); sample_sd needs two values.
// * NaN is refused (std::invalid_argument naming the sample and the value's position): a
//   figure computed over a NaN would be NaN or, for the order statistics, silently wrong.
//
// C++17 (prooflab_gpu_bench includes it from a .cu file).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace prooflab::stats {

// Throws std::invalid_argument "<what>: value #<i> is NaN" for the first NaN.
void require_no_nan(const std::vector<double>& values, const std::string& what);

std::optional<double> quantile(std::vector<double> values, double q, const std::string& what = "sample");
std::optional<double> median(std::vector<double> values, const std::string& what = "sample");
std::optional<double> mean(const std::vector<double>& values, const std::string& what = "sample");
std::optional<double> sample_sd(const std::vector<double>& values, const std::string& what = "sample");

// n, mean, median, min and max together (what the benchmark tables print).
struct Summary {
  std::size_t n = 0;
  double mean = 0, median = 0, min = 0, max = 0;
};
std::optional<Summary> summarize(std::vector<double> values, const std::string& what = "sample");

}  // namespace prooflab::stats
