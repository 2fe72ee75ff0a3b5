// The sparse products (evaluate, evaluate_all) against a naive product with 1 and several
// threads, the chunk hook, the padded layout for the prover, satisfiability checks that name
// the failing constraint, and the statistics.
#include <gtest/gtest.h>

#include "test_util.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include <atomic>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/parallel/thread_pool.hpp"
#include "core/r1cs/constraint_system.hpp"
#include "core/r1cs/evaluate.hpp"
#include "core/r1cs/r1cs.hpp"
#include "core/r1cs/satisfiability.hpp"
#include "core/r1cs/stats.hpp"

namespace {

namespace pt = prooflab::test;

using prooflab::field::Fr;
using prooflab::parallel::ThreadPool;
using namespace prooflab::r1cs;

Fr fr(std::uint64_t v) { return Fr::from_u64(v); }

// A random system with random (mostly 0/1, some significant) values and coefficients.
struct RandomSystem {
  R1cs r1cs;
  Witness w;
};
template <class Rng>
RandomSystem random_system(Rng& rng, std::size_t rows, std::size_t aux) {
  ConstraintSystem cs(Mode::kBoth);
  std::vector<Variable> vars = {Variable::one()};
  for (int i = 0; i < 3; ++i) vars.push_back(cs.alloc_input(Fr::random(rng)));
  for (std::size_t i = 0; i < aux; ++i) {
    const unsigned kind = rng() % 4;
    vars.push_back(cs.alloc_aux(kind == 0 ? Fr::random(rng) : fr(kind % 2)));
  }
  for (std::size_t row = 0; row < rows; ++row) {
    LinearCombination abc[3];
    for (auto& lc : abc) {
      const int n = static_cast<int>(rng() % 6);
      for (int t = 0; t < n; ++t) {
        const unsigned k = rng() % 4;
        const Fr coeff = k == 0   ? Fr::random(rng)
                         : k == 1 ? -Fr::one()
                         : k == 2 ? fr(1u << (rng() % 30))
                                  : Fr::one();
        lc.add(coeff, vars[rng() % vars.size()]);
      }
    }
    cs.enforce(abc[0], abc[1], abc[2], "random");
  }
  Witness w = cs.witness();
  return {compile(cs), std::move(w)};
}

std::vector<Fr> naive_product(const CsrMatrix& m, const Witness& w) {
  std::vector<Fr> out(m.num_rows);
  for (std::size_t r = 0; r < m.num_rows; ++r)
    for (std::uint64_t k = m.row_ptr[r]; k < m.row_ptr[r + 1]; ++k)
      out[r] += m.coeffs[m.coeff_ids[k]] * w.column(m.cols[k]);
  return out;
}

TEST(Evaluate, EqualsANaiveProductWithOneAndSeveralThreads) {
  auto rng = pt::test_rng();
  SCOPED_TRACE(pt::seed_note());
  const std::size_t rows = pt::kSlowBuild ? 3000 : 40000;
  const RandomSystem s = random_system(rng, rows, rows / 2);
  const std::vector<Fr> expected[3] = {naive_product(s.r1cs.a, s.w), naive_product(s.r1cs.b, s.w),
                                       naive_product(s.r1cs.c, s.w)};
  for (const unsigned threads : {1u, 2u, 4u}) {
    ThreadPool pool(threads);
    for (const std::size_t chunk : {std::size_t{1000}, kDefaultChunkRows}) {
      SCOPED_TRACE("threads " + std::to_string(threads) + ", chunk " + std::to_string(chunk));
      std::vector<Fr> out(rows);
      evaluate(s.r1cs.a, s.w, out, pool, nullptr, chunk);
      EXPECT_EQ(out, expected[0]);
      const Evaluations e = evaluate_all(s.r1cs, s.w, pool, nullptr, 0, chunk);
      EXPECT_EQ(e.a, expected[0]);
      EXPECT_EQ(e.b, expected[1]);
      EXPECT_EQ(e.c, expected[2]);
    }
  }
}

// The products add the coefficients of 0/1 values without reducing mod r until the row
// ends (docs/circuits.md): long rows of the largest coefficients on values that are mostly
// one carry out of 256 bits hundreds of times. Rows of up to 3000 terms (longer than any
// MultiEq or Poseidon row), coefficients -1, -2, 2^253 and random ones (all near r or
// above r/2), values 1, 0 and significant, against the naive product; evaluate_row (the
// satisfiability check's path) too.
TEST(Evaluate, LongRowsOfLargeCoefficientsEqualTheNaiveProduct) {
  auto rng = pt::test_rng();
  SCOPED_TRACE(pt::seed_note());
  ConstraintSystem cs(Mode::kBoth);
  std::vector<Variable> vars = {Variable::one(), cs.alloc_input(Fr::random(rng))};
  const std::size_t aux = 3000;
  for (std::size_t i = 0; i < aux; ++i) {
    const unsigned k = rng() % 16;  // mostly ones, some zeros and significant values
    vars.push_back(cs.alloc_aux(k < 12 ? Fr::one() : k < 14 ? Fr::zero() : Fr::random(rng)));
  }
  Fr two_253 = Fr::one();
  for (int i = 0; i < 253; ++i) two_253 = two_253.dbl();
  const std::size_t lengths[] = {0, 1, 2, 3, 4, 5, 17, 255, 256, 1000, 3000};
  for (const std::size_t len : lengths) {
    for (int rep = 0; rep < 3; ++rep) {
      LinearCombination abc[3];
      for (int which = 0; which < 3; ++which) {
        std::vector<Variable> pick = vars;
        std::shuffle(pick.begin(), pick.end(), rng);
        for (std::size_t t = 0; t < std::min(len, pick.size()); ++t) {
          const unsigned k = (rep + which + rng()) % 4;
          const Fr coeff = k == 0   ? -Fr::one()
                           : k == 1 ? -Fr::from_u64(2)
                           : k == 2 ? two_253
                                    : -Fr::random(rng).half().half();
          abc[which].add(coeff, pick[t]);
        }
      }
      cs.enforce(abc[0], abc[1], abc[2], "long row");
    }
  }
  const Witness w = cs.witness();
  const R1cs r = compile(cs);
  ASSERT_GT(r.a.nnz(), 10'000u);
  const std::vector<Fr> expected[3] = {naive_product(r.a, w), naive_product(r.b, w),
                                       naive_product(r.c, w)};
  ThreadPool pool(2);
  const Evaluations e = evaluate_all(r, w, pool);
  EXPECT_EQ(e.a, expected[0]);
  EXPECT_EQ(e.b, expected[1]);
  EXPECT_EQ(e.c, expected[2]);
  for (std::size_t row = 0; row < r.num_constraints; ++row) {
    EXPECT_EQ(evaluate_row(r.a, w, row), expected[0][row]) << "row " << row;
    EXPECT_EQ(evaluate_row(r.c, w, row), expected[2][row]) << "row " << row;
  }
}

struct CountingHook final : ChunkHook {
  std::atomic<int> calls{0};
  void between_chunks() override { calls.fetch_add(1, std::memory_order_relaxed); }
};

TEST(Evaluate, CallsTheHookOnceAfterEachChunk) {
  auto rng = pt::test_rng();
  const RandomSystem s = random_system(rng, 10'000, 100);
  ThreadPool pool(3);
  CountingHook hook;
  std::vector<Fr> out(10'000);
  evaluate(s.r1cs.b, s.w, out, pool, &hook, 1024);
  EXPECT_EQ(hook.calls.load(), 10);  // ceil(10000 / 1024)
  hook.calls = 0;
  evaluate_all(s.r1cs, s.w, pool, &hook);  // 8192 rows per chunk by default
  EXPECT_EQ(hook.calls.load(), 2);
}

// The engine's throttle hook checks an atomic flag and yields. Here, on a serial pool, the
// hook records how many rows are written each time it runs: exactly one more chunk each
// time, so it runs between chunks and not at any other moment.
TEST(Evaluate, HookRunsBetweenChunks) {
  auto rng = pt::test_rng();
  const RandomSystem s = random_system(rng, 4000, 100);
  ThreadPool pool(1);
  const Fr sentinel = Fr::random(rng);  // no row evaluates to it in practice
  std::vector<Fr> out(4000, sentinel);
  struct Recorder final : ChunkHook {
    const std::vector<Fr>* out = nullptr;
    Fr sentinel;
    std::vector<std::size_t> written;
    void between_chunks() override {
      std::size_t n = 0;
      for (const Fr& v : *out) n += !(v == sentinel);
      written.push_back(n);
    }
  } hook;
  hook.out = &out;
  hook.sentinel = sentinel;
  evaluate(s.r1cs.a, s.w, out, pool, &hook, 512);
  ASSERT_EQ(hook.written.size(), 8u);
  for (std::size_t k = 0; k < 8; ++k)
    EXPECT_EQ(hook.written[k], std::min<std::size_t>(4000, 512 * (k + 1)));
}

TEST(Evaluate, PaddedLayoutAppendsTheInputRows) {
  auto rng = pt::test_rng();
  const RandomSystem s = random_system(rng, 100, 20);
  ThreadPool pool(2);
  const std::size_t n = s.r1cs.num_constraints;
  const Evaluations plain = evaluate_all(s.r1cs, s.w, pool);
  const Evaluations padded = evaluate_all(s.r1cs, s.w, pool, nullptr, 128);
  ASSERT_EQ(padded.a.size(), 128u);
  for (std::size_t r = 0; r < n; ++r) {
    EXPECT_EQ(padded.a[r], plain.a[r]);
    EXPECT_EQ(padded.b[r], plain.b[r]);
    EXPECT_EQ(padded.c[r], plain.c[r]);
  }
  for (std::size_t i = 0; i < s.w.input.size(); ++i) EXPECT_EQ(padded.a[n + i], s.w.input[i]);
  for (std::size_t r = n + s.w.input.size(); r < 128; ++r) EXPECT_TRUE(padded.a[r].is_zero());
  for (std::size_t r = n; r < 128; ++r) EXPECT_TRUE(padded.b[r].is_zero() && padded.c[r].is_zero());
  EXPECT_THROW(evaluate_all(s.r1cs, s.w, pool, nullptr, n + 1), std::invalid_argument);

  // Into reused buffers holding stale values: the same result, the tail overwritten.
  std::vector<Fr> a(128, Fr::one()), b(128, Fr::one()), c(128, Fr::one());
  evaluate_all_into(s.r1cs, s.w, a, b, c, pool);
  EXPECT_EQ(a, padded.a);
  EXPECT_EQ(b, padded.b);
  EXPECT_EQ(c, padded.c);
  std::vector<Fr> short_c(127);
  EXPECT_THROW(evaluate_all_into(s.r1cs, s.w, a, b, short_c, pool), std::invalid_argument);
}

TEST(Evaluate, RejectsAWitnessOfTheWrongSize) {
  auto rng = pt::test_rng();
  RandomSystem s = random_system(rng, 10, 5);
  ThreadPool pool(1);
  s.w.aux.pop_back();
  std::vector<Fr> out(10);
  try {
    evaluate(s.r1cs.a, s.w, out, pool);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("columns"), std::string::npos) << e.what();
  }
  EXPECT_THROW(evaluate_all(s.r1cs, s.w, pool), std::invalid_argument);
  EXPECT_THROW(first_unsatisfied(s.r1cs, s.w), std::invalid_argument);
}

// x·x = y; y·x = z; (z + x + 5)·1 = out, in scopes, then one aux value corrupted.
TEST(Satisfiability, FindsTheCorruptedConstraintAndNamesIt) {
  ConstraintSystem cs(Mode::kBoth);
  const Fr xv = fr(3);
  const Variable out = cs.alloc_input(fr(35));
  const Variable x = cs.alloc_aux(xv);
  const Variable y = cs.alloc_aux(xv * xv);
  const Variable z = cs.alloc_aux(xv * xv * xv);
  {
    Scope s(cs, "cubic");
    cs.enforce(x, x, y, "x^2");
    cs.enforce(y, x, z, Annotation("power {}", 3));
  }
  cs.enforce(LinearCombination(z) + x + term(fr(5), Variable::one()), Variable::one(), out, "sum");
  const R1cs r = compile(cs);
  Witness w = cs.witness();
  EXPECT_FALSE(first_unsatisfied(r, w).has_value());
  EXPECT_NO_THROW(require_satisfied(r, w));

  w.aux[2] = fr(28);  // z: breaks constraints 1 and 2; the first is reported
  const auto bad = first_unsatisfied(r, w);
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->index, 1u);
  EXPECT_EQ(bad->annotation, "cubic/power 3");
  EXPECT_EQ(bad->a, fr(9));
  EXPECT_EQ(bad->b, fr(3));
  EXPECT_EQ(bad->c, fr(28));
  try {
    require_satisfied(r, w);
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "constraint 1 (cubic/power 3) is not satisfied: a·b != c");
  }

  w = cs.witness();
  w.input[1] = fr(36);
  const auto bad_input = first_unsatisfied(r, w);
  ASSERT_TRUE(bad_input.has_value());
  EXPECT_EQ(bad_input->index, 2u);
  EXPECT_EQ(bad_input->annotation, "sum");
}

TEST(Stats, CountsDensitiesAndZeroOneValues) {
  ConstraintSystem cs(Mode::kBoth);
  const Variable in = cs.alloc_input(fr(1));
  const Variable b0 = cs.alloc_aux(fr(0));
  const Variable b1 = cs.alloc_aux(fr(1));
  const Variable big = cs.alloc_aux(fr(77));
  const Variable other = cs.alloc_aux(fr(1));
  cs.enforce(LinearCombination(Variable::one()) - b0, b0, {}, "bool");  // A: b0, B: b0
  cs.enforce(LinearCombination(Variable::one()) - b1, b1, {}, "bool");  // A: b1, B: b1
  cs.enforce(big, in, big, "times input");                              // A: big, B: in
  cs.enforce({}, {}, other, "c only");
  const R1cs r = compile(cs);
  const R1csStats s = stats(r, cs.witness());
  EXPECT_EQ(s.num_constraints, 4u);
  EXPECT_EQ(s.num_inputs, 2u);
  EXPECT_EQ(s.num_aux, 4u);
  EXPECT_EQ(s.nnz_a, 5u);
  EXPECT_EQ(s.nnz_b, 3u);
  EXPECT_EQ(s.nnz_c, 2u);
  EXPECT_EQ(s.a_aux_dense, 3u);
  EXPECT_DOUBLE_EQ(s.a_aux_density, 0.75);
  EXPECT_EQ(s.b_aux_dense, 2u);
  EXPECT_DOUBLE_EQ(s.b_aux_density, 0.5);
  EXPECT_EQ(s.b_input_dense, 1u);  // u, not ONE
  EXPECT_EQ(s.aux_zero, 1u);
  EXPECT_EQ(s.aux_one, 2u);
  EXPECT_EQ(s.aux_significant, 1u);
  EXPECT_DOUBLE_EQ(s.aux_one_fraction, 0.5);
  EXPECT_EQ(s.a_aux_significant, 1u);
  EXPECT_EQ(s.b_aux_significant, 0u);
  EXPECT_NE(format_stats(s).find("a_aux 75.00 %"), std::string::npos) << format_stats(s);
}

}  // namespace
