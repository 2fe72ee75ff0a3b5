// The C++ percentile is numpy's "linear" definition (core/trace/percentile.hpp). Expected
// values below are worked out by hand from h = (n - 1) q; tests/python/test_stats.py
// compares the engine's summary.json against numpy on the same jobs.
#include <gtest/gtest.h>

#include <vector>

#include "core/trace/percentile.hpp"

namespace {

using prooflab::trace::percentile;

TEST(Percentile, InterpolatesLinearlyBetweenOrderStatistics) {
  // The case: job latencies where nearest rank and interpolation differ.
  const std::vector<double> v = {4.10, 4.71, 3.98, 4.45, 4.02, 4.30};  // sorted: 3.98 4.02 4.10 4.30 4.45 4.71
  // p95: h = 5 * 0.95 = 4.75 -> 4.45 + 0.75 * (4.71 - 4.45) = 4.645 (nearest rank said 4.71)
  EXPECT_NEAR(*percentile(v, 0.95), 4.645, 1e-12);
  // p50: h = 2.5 -> (4.10 + 4.30) / 2
  EXPECT_NEAR(*percentile(v, 0.50), 4.20, 1e-12);
  EXPECT_DOUBLE_EQ(*percentile(v, 0.0), 3.98);
  EXPECT_DOUBLE_EQ(*percentile(v, 1.0), 4.71);
}

TEST(Percentile, OneValueEmptyAndBadQ) {
  EXPECT_DOUBLE_EQ(*percentile({7.5}, 0.95), 7.5);
  EXPECT_FALSE(percentile({}, 0.5).has_value());
  EXPECT_THROW(percentile({1.0}, 1.5), std::invalid_argument);
  EXPECT_THROW(percentile({1.0}, -0.1), std::invalid_argument);
}

}  // namespace
