// The one percentile definition of prooflab, for the figures the C++ side writes
// (summary.json's latency_s). It is numpy's default, "linear" (Hyndman & Fan type 7), the
// definition of analysis/prooflab_analysis/stats.py, so a report and summary.json give the
// same p95 for the same jobs (tests/python/test_stats.py runs the engine and compares):
// for sorted x_0..x_{n-1} and q in [0, 1], h = (n - 1) q, and the value is
// x_floor(h) + (h - floor(h)) (x_floor(h)+1 - x_floor(h)).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace prooflab::trace {

// The q-quantile (q in [0, 1]) of `values`; nullopt when there are none.
inline std::optional<double> percentile(std::vector<double> values, double q) {
  if (!(q >= 0.0 && q <= 1.0)) throw std::invalid_argument("percentile: q " + std::to_string(q) + " not in [0, 1]");
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  const double h = static_cast<double>(values.size() - 1) * q;
  const auto lo = static_cast<std::size_t>(std::floor(h));
  if (lo + 1 >= values.size()) return values.back();
  // numpy's form of the interpolation, so results agree to the last bit where it can.
  return values[lo] + (h - static_cast<double>(lo)) * (values[lo + 1] - values[lo]);
}

}  // namespace prooflab::trace
