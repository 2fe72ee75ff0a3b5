// The union of intervals and the busy fraction (core/stats/interval_union.hpp), on spans
// whose union is known by hand.
#include "core/stats/interval_union.hpp"

#include <gtest/gtest.h>

namespace {

using prooflab::stats::busy_fraction;
using prooflab::stats::union_length;

TEST(UnionLength, OverlapsCountOnceTouchingSpansMergeAndTheWindowClips) {
  // [0,10) ∪ [5,15) = 15; [15,20) touches it: 20; [30,40) alone: 10; [35,36) inside it.
  EXPECT_EQ(union_length({{0, 10}, {5, 15}, {15, 20}, {30, 40}, {35, 36}}, {0, 100}), 30);
  // Clipped to [8, 32): [8,20) + [30,32) = 14.
  EXPECT_EQ(union_length({{30, 40}, {0, 10}, {15, 20}, {5, 15}}, {8, 32}), 14);
  EXPECT_EQ(union_length({{50, 60}}, {0, 40}), 0);           // outside the window
  EXPECT_EQ(union_length({{10, 10}, {20, 5}}, {0, 40}), 0);  // empty and reversed spans
  EXPECT_EQ(union_length({}, {0, 40}), 0);
}

TEST(BusyFraction, UnionOverTheWindowAndNoneForAnEmptyWindow) {
  // [0,10) ∪ [5,15) over [0, 60): 15 / 60.
  EXPECT_DOUBLE_EQ(*busy_fraction({{0, 10}, {5, 15}}, {0, 60}), 0.25);
  EXPECT_DOUBLE_EQ(*busy_fraction({}, {0, 60}), 0.0);
  EXPECT_FALSE(busy_fraction({{0, 10}}, {5, 5}).has_value());
  EXPECT_FALSE(busy_fraction({{0, 10}}, {9, 3}).has_value());
}

}  // namespace
