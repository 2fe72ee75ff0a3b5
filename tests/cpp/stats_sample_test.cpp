// The C++ summary statistics (core/stats/sample.hpp): the quantile is numpy's "linear"
// definition, worked out here by hand from h = (n - 1) q; tests/python/test_stats_agree.py
// feeds the same samples to these functions (through `prooflab.stats`) and to stats.py.
#include "core/stats/sample.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <vector>

namespace {

using prooflab::stats::mean;
using prooflab::stats::median;
using prooflab::stats::quantile;
using prooflab::stats::sample_sd;
using prooflab::stats::summarize;

TEST(Quantile, InterpolatesLinearlyBetweenOrderStatistics) {
  // The case: job latencies where nearest rank and interpolation differ.
  const std::vector<double> v = {4.10, 4.71, 3.98, 4.45, 4.02, 4.30};  // sorted: 3.98 4.02 4.10 4.30 4.45 4.71
  // p95: h = 5 * 0.95 = 4.75 -> 4.45 + 0.75 * (4.71 - 4.45) = 4.645 (nearest rank said 4.71)
  EXPECT_NEAR(*quantile(v, 0.95), 4.645, 1e-12);
  // p50: h = 2.5 -> (4.10 + 4.30) / 2
  EXPECT_NEAR(*quantile(v, 0.50), 4.20, 1e-12);
  EXPECT_DOUBLE_EQ(*quantile(v, 0.0), 3.98);
  EXPECT_DOUBLE_EQ(*quantile(v, 1.0), 4.71);
}

TEST(Quantile, OneValueEmptyAndBadQ) {
  EXPECT_DOUBLE_EQ(*quantile({7.5}, 0.95), 7.5);
  EXPECT_FALSE(quantile({}, 0.5).has_value());
  EXPECT_THROW(quantile({1.0}, 1.5), std::invalid_argument);
  EXPECT_THROW(quantile({1.0}, -0.1), std::invalid_argument);
}

TEST(Median, OddEvenTiesAndTwoValues) {
  EXPECT_DOUBLE_EQ(*median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(*median({4, 1, 3, 2}), 2.5);  // the two middle values' mean
  EXPECT_DOUBLE_EQ(*median({5, 5, 1, 5}), 5);
  EXPECT_DOUBLE_EQ(*median({1, 2}), 1.5);
  EXPECT_FALSE(median({}).has_value());
}

TEST(MeanAndSd, ByHand) {
  // 2, 4, 4, 4, 5, 5, 7, 9: mean 5, squares sum 32, sd = sqrt(32 / 7).
  const std::vector<double> v = {2, 4, 4, 4, 5, 5, 7, 9};
  EXPECT_DOUBLE_EQ(*mean(v), 5);
  EXPECT_DOUBLE_EQ(*sample_sd(v), std::sqrt(32.0 / 7.0));
  EXPECT_DOUBLE_EQ(*mean({3}), 3);
  EXPECT_FALSE(sample_sd({3}).has_value());  // one value has no spread to estimate
  EXPECT_FALSE(mean({}).has_value());
}

TEST(Summarize, AllFiguresOfOneSample) {
  const auto s = summarize({9, 1, 5, 3});
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->n, 4u);
  EXPECT_DOUBLE_EQ(s->mean, 4.5);
  EXPECT_DOUBLE_EQ(s->median, 4);
  EXPECT_DOUBLE_EQ(s->min, 1);
  EXPECT_DOUBLE_EQ(s->max, 9);
  EXPECT_FALSE(summarize({}).has_value());
}

TEST(SampleStatistics, NanIsRefusedNamingTheSampleAndPosition) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const auto& call : std::vector<std::function<void()>>{
           [&] { quantile({1, nan}, 0.5, "wall_s"); }, [&] { median({1, nan}, "wall_s"); },
           [&] { mean({1, nan}, "wall_s"); }, [&] { sample_sd({1, nan}, "wall_s"); },
           [&] { summarize({1, nan}, "wall_s"); }}) {
    try {
      call();
      ADD_FAILURE() << "NaN accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_STREQ(e.what(), "wall_s: value #1 of 2 is NaN");
    }
  }
}

}  // namespace
