// LazySum and WideSum (core/r1cs/lazy_sum.hpp) against Fr's reduced additions and
// multiplications, on random values and on the largest representatives (r - 1, r - 2, ...),
// where the unreduced sums carry out of 256 and 512 bits.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "core/r1cs/lazy_sum.hpp"
#include "test_util.hpp"

namespace {

namespace pt = prooflab::test;
using prooflab::field::Fr;
using prooflab::r1cs::LazySum;
using prooflab::r1cs::WideSum;

// Values near the top of the field and random ones, mixed.
Fr sample(std::mt19937_64& rng) {
  switch (rng() % 4) {
    case 0:
      return -Fr::from_u64(1 + rng() % 8);  // representatives near r
    case 1:
      return Fr::from_u64(rng() % 3);
    default:
      return Fr::random(rng);
  }
}

TEST(LazySum, EqualsReducedAdditionForAnyNumberOfTerms) {
  auto rng = pt::test_rng();
  SCOPED_TRACE(pt::seed_note());
  for (const std::size_t n : {0u, 1u, 2u, 3u, 4u, 7u, 64u, 1000u, 20000u}) {
    for (int rep = 0; rep < pt::iterations(20, 2); ++rep) {
      LazySum lazy;
      Fr expected = Fr::zero();
      for (std::size_t i = 0; i < n; ++i) {
        const Fr x = sample(rng);
        lazy.add(x);
        expected += x;
      }
      ASSERT_EQ(lazy.reduce(n), expected) << n << " terms";
    }
  }
}

TEST(LazySum, LargestRepresentativesCarryAndStillReduce) {
  // -1 (representative r - (R mod r)) alternating with the element whose representative is
  // r - 1, the largest: the sum carries out of 256 bits about every other term.
  for (const std::size_t n : {2u, 3u, 5u, 100u, 12345u}) {
    LazySum lazy;
    const Fr minus_one = -Fr::one();
    const Fr top = Fr::from_mont(prooflab::field::bigint_sub_small(Fr::kModulus, 1));
    Fr expected = Fr::zero();
    for (std::size_t i = 0; i < n; ++i) {
      lazy.add(i % 2 ? top : minus_one);
      expected += i % 2 ? top : minus_one;
    }
    EXPECT_EQ(lazy.reduce(n), expected) << n << " terms";
  }
}

TEST(WideSum, EqualsTheSumOfMontgomeryProducts) {
  auto rng = pt::test_rng();
  SCOPED_TRACE(pt::seed_note());
  const Fr top = Fr::from_mont(prooflab::field::bigint_sub_small(Fr::kModulus, 1));
  for (const std::size_t n : {1u, 2u, 3u, 10u, 300u, 5000u}) {
    for (int rep = 0; rep < pt::iterations(20, 2); ++rep) {
      WideSum wide;
      Fr expected = Fr::zero();
      for (std::size_t i = 0; i < n; ++i) {
        const Fr a = rep == 0 ? top : sample(rng);  // rep 0: (r-1)^2 every term
        const Fr b = rep == 0 ? top : sample(rng);
        wide.add_product(a, b);
        expected += a * b;
      }
      ASSERT_EQ(wide.reduce(), expected) << n << " terms, rep " << rep;
    }
  }
  EXPECT_EQ(WideSum{}.reduce(), Fr::zero());
}

}  // namespace
