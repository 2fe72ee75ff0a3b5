// NTTs against the naive O(n^2) evaluation, round trips, and thread-count independence.
#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/poly/ntt.hpp"

namespace {

using prooflab::field::Fr;
using prooflab::parallel::ThreadPool;
using prooflab::poly::EvaluationDomain;

std::vector<Fr> random_vector(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Fr> v(n);
  for (auto& x : v) x = Fr::random(rng);
  return v;
}

// Σ_j coeffs[j]·x^j for x = shift·ω^i.
std::vector<Fr> naive_evaluate(const std::vector<Fr>& coeffs, const EvaluationDomain& d,
                               const Fr& shift) {
  std::vector<Fr> out(d.size());
  Fr x = shift;
  for (std::size_t i = 0; i < d.size(); ++i) {
    Fr acc = Fr::zero(), xp = Fr::one();
    for (const auto& c : coeffs) {
      acc += c * xp;
      xp *= x;
    }
    out[i] = acc;
    x *= d.omega();
  }
  return out;
}

class NttSizes : public ::testing::TestWithParam<unsigned> {};

TEST_P(NttSizes, MatchesNaiveEvaluation) {
  const EvaluationDomain d(GetParam());
  ThreadPool pool(3);
  const auto coeffs = random_vector(d.size(), 100 + GetParam());
  auto a = coeffs;
  prooflab::poly::ntt(a, d, pool);
  EXPECT_EQ(a, naive_evaluate(coeffs, d, Fr::one()));
  auto b = coeffs;
  prooflab::poly::coset_ntt(b, d, pool);
  EXPECT_EQ(b, naive_evaluate(coeffs, d, EvaluationDomain::coset_shift()));
}

TEST_P(NttSizes, InverseTransformsRoundTrip) {
  const EvaluationDomain d(GetParam());
  ThreadPool pool(2);
  const auto v = random_vector(d.size(), 200 + GetParam());
  auto a = v;
  prooflab::poly::ntt(a, d, pool);
  prooflab::poly::intt(a, d, pool);
  EXPECT_EQ(a, v);
  prooflab::poly::coset_ntt(a, d, pool);
  prooflab::poly::coset_intt(a, d, pool);
  EXPECT_EQ(a, v);
}

INSTANTIATE_TEST_SUITE_P(Small, NttSizes, ::testing::Values(0u, 1u, 2u, 3u, 5u, 8u));

TEST(Ntt, SameResultForAnyThreadCount) {
  const EvaluationDomain d(14);  // above the parallel chunk size: stages really split
  const auto v = random_vector(d.size(), 7);
  auto serial = v, parallel4 = v;
  ThreadPool one(1), four(4);
  prooflab::poly::coset_ntt(serial, d, one);
  prooflab::poly::coset_ntt(parallel4, d, four);
  EXPECT_EQ(serial, parallel4);
}

// Past 2^13 the transform runs its later stages tile by tile (and, for Fr with IFMA, in
// vector lanes); 2^21 needs two tile rounds. The naive sum at 16 sampled outputs checks it.
TEST(Ntt, LargeSizesMatchNaiveEvaluationAtSampledPoints) {
  for (unsigned log_n : {14u, 17u, 21u}) {
    const EvaluationDomain d(log_n);
    ThreadPool pool(2);
    const auto coeffs = random_vector(d.size(), 300 + log_n);
    auto a = coeffs, b = coeffs;
    prooflab::poly::ntt(a, d, pool);
    prooflab::poly::coset_ntt(b, d, pool);
    std::mt19937_64 rng(log_n);
    for (int sample = 0; sample < 16; ++sample) {
      const std::size_t i = sample == 0 ? d.size() - 1 : rng() % d.size();
      const Fr x = d.omega().pow(prooflab::field::BigInt<1>{i});
      const Fr xc = EvaluationDomain::coset_shift() * x;
      Fr at_x = Fr::zero(), at_xc = Fr::zero();
      for (std::size_t j = coeffs.size(); j-- > 0;) {  // Horner
        at_x = at_x * x + coeffs[j];
        at_xc = at_xc * xc + coeffs[j];
      }
      EXPECT_EQ(a[i], at_x) << "ntt 2^" << log_n << " output " << i;
      EXPECT_EQ(b[i], at_xc) << "coset_ntt 2^" << log_n << " output " << i;
    }
    prooflab::poly::intt(a, d, pool);
    EXPECT_EQ(a, coeffs) << "intt 2^" << log_n;
  }
}

TEST(Ntt, VanishingPolynomialIsConstantOnTheCoset) {
  const EvaluationDomain d(6);
  const Fr g = EvaluationDomain::coset_shift();
  EXPECT_EQ(d.vanishing_at(g), d.vanishing_at(g * d.omega()));
  EXPECT_TRUE(d.vanishing_at(d.omega()).is_zero());
  EXPECT_FALSE(d.vanishing_at(g).is_zero());
}

TEST(Ntt, RejectsWrongSizes) {
  const EvaluationDomain d(4);
  ThreadPool pool(1);
  std::vector<Fr> a(15);
  EXPECT_THROW(prooflab::poly::ntt(a, d, pool), std::invalid_argument);
  EXPECT_THROW(EvaluationDomain(33), std::invalid_argument);
  EXPECT_EQ(EvaluationDomain::at_least(1000).size(), 1024u);
}

// The log size alone (what qap_domain_size asks per partition) is the domain's, from 1 point
// to the field's two-adicity, and over it the same error names the point count.
TEST(Ntt, LogSizeAloneIsTheDomainsAndRefusesTheSameSizes) {
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{1000},
                              std::size_t{1024}, std::size_t{1025}, (std::size_t{1} << 16) - 1,
                              (std::size_t{1} << 16) + 1}) {
    const unsigned log = EvaluationDomain::log_size_at_least(n);
    EXPECT_EQ(log, EvaluationDomain::at_least(n).log_size()) << n;
    EXPECT_GE(std::size_t{1} << log, n);
    if (log > 0) EXPECT_LT(std::size_t{1} << (log - 1), n) << n;
  }
  EXPECT_EQ(EvaluationDomain::log_size_at_least(std::size_t{1} << 32), 32u);
  const std::size_t over = (std::size_t{1} << 32) + 1;
  try {
    EvaluationDomain::log_size_at_least(over);
    ADD_FAILURE() << "2^32 + 1 points accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(std::to_string(over) + " points exceed the 2^32"), std::string::npos)
        << e.what();
  }
}

}  // namespace
