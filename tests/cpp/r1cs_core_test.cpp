// The constraint-system layer on hand-made systems: linear combinations, the three modes,
// compile() into CSR (checked against a naive evaluation of the recorded combinations),
// merging of repeated variables, densities with known answers, and annotations with scopes.
#include <gtest/gtest.h>

#include "test_util.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/r1cs/constraint_system.hpp"
#include "core/r1cs/linear_combination.hpp"
#include "core/r1cs/r1cs.hpp"
#include "core/r1cs/satisfiability.hpp"

namespace {

namespace pt = prooflab::test;

using prooflab::field::Fr;
using namespace prooflab::r1cs;

Fr fr(std::uint64_t v) { return Fr::from_u64(v); }

// Σ coeff·value over the terms, straight from the combination.
Fr naive(const LinearCombination& lc, const Witness& w) {
  Fr acc = Fr::zero();
  for (const Term& t : lc.terms()) acc += t.coeff * w.value(t.var);
  return acc;
}

// (A·w)[row] computed from the CSR arrays one nonzero at a time.
Fr csr_row(const CsrMatrix& m, const Witness& w, std::size_t row) {
  Fr acc = Fr::zero();
  for (std::uint64_t k = m.row_ptr[row]; k < m.row_ptr[row + 1]; ++k)
    acc += m.coeffs[m.coeff_ids[k]] * w.column(m.cols[k]);
  return acc;
}

TEST(LinearCombination, BuildsTermsInOrderWithOperators) {
  const Variable x = Variable::aux(0), y = Variable::aux(1), in = Variable::input(1);
  LinearCombination lc = LinearCombination(x) + y - in + term(fr(5), Variable::one());
  ASSERT_EQ(lc.size(), 4u);
  EXPECT_EQ(lc.terms()[0].var, x);
  EXPECT_EQ(lc.terms()[1].var, y);
  EXPECT_EQ(lc.terms()[2].var, in);
  EXPECT_EQ(lc.terms()[2].coeff, -Fr::one());
  EXPECT_EQ(lc.terms()[3].coeff, fr(5));

  const LinearCombination scaled = lc * fr(3);
  EXPECT_EQ(scaled.terms()[3].coeff, fr(15));
  EXPECT_EQ(scaled.terms()[0].coeff, fr(3));
  EXPECT_EQ((lc - lc).size(), 8u);  // not merged: merging is compact()'s job
}

TEST(LinearCombination, SpillsToTheHeapAndCopiesBothWays) {
  LinearCombination big;
  for (std::uint32_t i = 0; i < 100; ++i) big.add(fr(i + 1), Variable::aux(i));
  LinearCombination copy = big;
  LinearCombination moved = std::move(copy);
  LinearCombination small(Variable::aux(7));
  small = moved;
  ASSERT_EQ(small.size(), 100u);
  for (std::uint32_t i = 0; i < 100; ++i) {
    EXPECT_EQ(small.terms()[i].var, Variable::aux(i));
    EXPECT_EQ(small.terms()[i].coeff, fr(i + 1));
  }
  LinearCombination inline_copy(Variable::aux(1));
  LinearCombination moved_inline = std::move(inline_copy);
  EXPECT_EQ(moved_inline.size(), 1u);
}

TEST(LinearCombination, CompactMergesAndDropsZeros) {
  const Variable x = Variable::aux(3), y = Variable::aux(1), one = Variable::one();
  LinearCombination lc = LinearCombination(x) + y + x + term(fr(2), one) - y + term(fr(4), one);
  lc.compact();
  ASSERT_EQ(lc.size(), 2u);
  EXPECT_EQ(lc.terms()[0].var, one);  // inputs sort first
  EXPECT_EQ(lc.terms()[0].coeff, fr(6));
  EXPECT_EQ(lc.terms()[1].var, x);
  EXPECT_EQ(lc.terms()[1].coeff, fr(2));
}

TEST(ConstraintSystem, CountsVariablesAndConstraintsInEveryMode) {
  for (const Mode mode : {Mode::kShape, Mode::kWitness, Mode::kBoth}) {
    SCOPED_TRACE(mode_name(mode));
    ConstraintSystem cs(mode);
    EXPECT_EQ(cs.num_inputs(), 1u);  // ONE
    const Variable in = cs.alloc_input(fr(9));
    const Variable a = cs.alloc_aux(fr(3));
    EXPECT_EQ(in, Variable::input(1));
    EXPECT_EQ(a, Variable::aux(0));
    cs.enforce(a, a, in, "square");
    cs.enforce_with("lazy",
                    [&](LinearCombination& la, LinearCombination& lb, LinearCombination& lc) {
                      la.add(a);
                      lb.add(Variable::one());
                      lc.add(a);
                    });
    EXPECT_EQ(cs.num_inputs(), 2u);
    EXPECT_EQ(cs.num_aux(), 1u);
    EXPECT_EQ(cs.num_constraints(), 2u);
    EXPECT_EQ(cs.records_shape(), mode != Mode::kWitness);
    EXPECT_EQ(cs.records_values(), mode != Mode::kShape);
    if (cs.records_values()) {
      const Witness w = cs.witness();
      EXPECT_EQ(w.input, (std::vector<Fr>{Fr::one(), fr(9)}));
      EXPECT_EQ(w.aux, (std::vector<Fr>{fr(3)}));
    } else {
      EXPECT_THROW(cs.witness(), std::logic_error);
    }
  }
}

TEST(ConstraintSystem, WitnessModeStoresNoConstraintsAndNeverBuildsLazyCombinations) {
  ConstraintSystem cs(Mode::kWitness);
  const Variable a = cs.alloc_aux(fr(1));
  bool built = false;
  for (int i = 0; i < 1000; ++i)
    cs.enforce_with(
        "lazy", [&](LinearCombination&, LinearCombination&, LinearCombination&) { built = true; });
  cs.enforce(a, a, a, "eager");
  EXPECT_FALSE(built);
  EXPECT_EQ(cs.num_constraints(), 1001u);
  for (int m = 0; m < 3; ++m) {
    EXPECT_TRUE(cs.matrix(m).vars.empty());
    EXPECT_EQ(cs.matrix(m).row_ptr.size(), 1u);
  }
  EXPECT_TRUE(cs.annotations().tags.empty());
  EXPECT_THROW(compile(cs), std::invalid_argument);
}

// A hand-made system over inputs (ONE, u) and aux (x, y, z):
//   0: x·x = y
//   1: (y + 3x + 2·ONE)·(ONE) = z + u - u      (u cancels in C)
//   2: (x + x + y - y)·(u) = z + 5·ONE         (x merged to 2x, y cancels in A)
//   3: (0)·(0) = (0)                            (an empty row)
struct HandMade {
  ConstraintSystem cs{Mode::kBoth};
  std::vector<LinearCombination> a, b, c;
  Variable u, x, y, z;

  HandMade() {
    u = cs.alloc_input(fr(2));
    x = cs.alloc_aux(fr(3));
    y = cs.alloc_aux(fr(9));
    z = cs.alloc_aux(fr(9 + 9 + 2));
    add(x, x, y, "square");
    add(LinearCombination(y) + term(fr(3), x) + term(fr(2), Variable::one()), Variable::one(),
        LinearCombination(z) + u - u, "sum");
    add(LinearCombination(x) + x + y - y, u, LinearCombination(z) + term(fr(5), Variable::one()),
        "scaled");
    add({}, {}, {}, "empty");
  }
  void add(const LinearCombination& la, const LinearCombination& lb, const LinearCombination& lc,
           Annotation ann) {
    a.push_back(la);
    b.push_back(lb);
    c.push_back(lc);
    cs.enforce(la, lb, lc, ann);
  }
};

TEST(Compile, CsrMatchesANaiveEvaluationOfTheRecordedCombinations) {
  HandMade h;
  const Witness w = h.cs.witness();
  const R1cs r = compile(h.cs);
  ASSERT_EQ(r.num_inputs, 2u);
  ASSERT_EQ(r.num_aux, 3u);
  ASSERT_EQ(r.num_constraints, 4u);
  const CsrMatrix* m[3] = {&r.a, &r.b, &r.c};
  const std::vector<LinearCombination>* lcs[3] = {&h.a, &h.b, &h.c};
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(m[k]->num_rows, 4u);
    EXPECT_EQ(m[k]->num_cols, 5u);
    ASSERT_EQ(m[k]->row_ptr.size(), 5u);
    for (std::size_t row = 0; row < 4; ++row) {
      EXPECT_EQ(csr_row(*m[k], w, row), naive((*lcs[k])[row], w))
          << "matrix " << k << " row " << row;
      for (std::uint64_t i = m[k]->row_ptr[row] + 1; i < m[k]->row_ptr[row + 1]; ++i)
        EXPECT_LT(m[k]->cols[i - 1], m[k]->cols[i]) << "columns ascending and distinct";
    }
  }
  // Merging: A row 2 holds only x (coefficient 2); C row 1 only z; A row 1 ONE, x, y.
  EXPECT_EQ(r.a.row_size(2), 1u);
  EXPECT_EQ(r.a.cols[r.a.row_ptr[2]], 2u);  // x is column num_inputs + 0
  EXPECT_EQ(r.a.coeff(r.a.row_ptr[2]), fr(2));
  EXPECT_EQ(r.c.row_size(1), 1u);
  EXPECT_EQ(r.a.row_size(1), 3u);
  EXPECT_EQ(r.a.row_size(3), 0u);
  EXPECT_EQ(r.a.coeffs[kCoeffOne], Fr::one());
  EXPECT_EQ(r.a.coeffs[kCoeffMinusOne], -Fr::one());
}

TEST(Compile, DensitiesHaveTheKnownAnswers) {
  HandMade h;
  const R1cs r = compile(h.cs);
  // A mentions x (rows 0, 1, 2) and y (row 1; cancelled in row 2), never z.
  EXPECT_EQ(r.a_aux_density.size(), 3u);
  EXPECT_TRUE(r.a_aux_density[0]);
  EXPECT_TRUE(r.a_aux_density[1]);
  EXPECT_FALSE(r.a_aux_density[2]);
  EXPECT_EQ(r.a_aux_density.count(), 2u);
  // B mentions x (row 0), ONE (row 1) and u (row 2); no y, no z.
  EXPECT_EQ(r.b_aux_density.count(), 1u);
  EXPECT_TRUE(r.b_aux_density[0]);
  EXPECT_EQ(r.b_input_density.size(), 2u);
  EXPECT_TRUE(r.b_input_density[0]);
  EXPECT_TRUE(r.b_input_density[1]);
  EXPECT_DOUBLE_EQ(r.a_aux_density.fraction(), 2.0 / 3.0);
}

TEST(Compile, MovingAndCopyingGiveTheSameSystem) {
  HandMade h1, h2;
  const R1cs copied = compile(h1.cs);
  const R1cs moved = compile(std::move(h2.cs));
  EXPECT_EQ(copied, moved);
  const R1cs bare = compile(h1.cs, CompileOptions{.keep_annotations = false});
  EXPECT_TRUE(bare.annotations.empty());
  EXPECT_TRUE(bare.same_shape(copied));
}

TEST(Compile, ShapeModeAndBothModeRecordTheSameMatrices) {
  auto build = [](ConstraintSystem& cs) {
    const Variable in = cs.alloc_input(fr(4));
    const Variable x = cs.alloc_aux(fr(2));
    cs.enforce(x, x, in, "x^2 = in");
  };
  ConstraintSystem shape(Mode::kShape), both(Mode::kBoth);
  build(shape);
  build(both);
  EXPECT_EQ(compile(shape), compile(both));
}

TEST(Annotations, ScopesAndIndicesComposeThePath) {
  ConstraintSystem cs(Mode::kShape);
  const Variable x = cs.alloc_aux(fr(0));
  cs.enforce(x, x, x, "top");
  {
    Scope s(cs, "sha256");
    cs.enforce(x, x, x, Annotation("round {}/maj", 12));
    {
      Scope inner(cs, "block", 3);
      cs.enforce(x, x, x, Annotation("bit", 7));
    }
    cs.enforce(x, x, x, "after");
  }
  const R1cs r = compile(cs);
  EXPECT_EQ(r.annotations.describe(0), "top");
  EXPECT_EQ(r.annotations.describe(1), "sha256/round 12/maj");
  EXPECT_EQ(r.annotations.describe(2), "sha256/block 3/bit 7");
  EXPECT_EQ(r.annotations.describe(3), "sha256/after");
  EXPECT_EQ(r.annotations.sites.size(), 4u);
}

TEST(Annotations, FormatLabel) {
  EXPECT_EQ(format_label("round {}/ch", 5), "round 5/ch");
  EXPECT_EQ(format_label("bit", 5), "bit 5");
  EXPECT_EQ(format_label("bit", kNoIndex), "bit");
  EXPECT_EQ(format_label("w[{}]", kNoIndex), "w[]");
}

TEST(ConstraintSystem, RandomSystemsCompileToTheirNaiveEvaluation) {
  auto rng = pt::test_rng();
  SCOPED_TRACE(pt::seed_note());
  for (int iter = 0; iter < pt::iterations(20, 3); ++iter) {
    ConstraintSystem cs(Mode::kBoth);
    const int inputs = 1 + static_cast<int>(rng() % 4), aux = 1 + static_cast<int>(rng() % 30);
    std::vector<Variable> vars = {Variable::one()};
    for (int i = 0; i < inputs; ++i) vars.push_back(cs.alloc_input(Fr::random(rng)));
    for (int i = 0; i < aux; ++i)
      vars.push_back(cs.alloc_aux(rng() % 2 ? Fr::random(rng) : fr(rng() % 2)));
    std::vector<LinearCombination> lcs[3];
    const int rows = 1 + static_cast<int>(rng() % 50);
    for (int row = 0; row < rows; ++row) {
      LinearCombination abc[3];
      for (auto& lc : abc) {
        const int n = static_cast<int>(rng() % 12);
        for (int t = 0; t < n; ++t) {
          const Fr coeff = rng() % 3 == 0 ? Fr::random(rng) : (rng() % 2 ? Fr::one() : -Fr::one());
          lc.add(coeff, vars[rng() % vars.size()]);
        }
      }
      for (int k = 0; k < 3; ++k) lcs[k].push_back(abc[k]);
      cs.enforce(abc[0], abc[1], abc[2], Annotation("row", static_cast<std::uint32_t>(row)));
    }
    const Witness w = cs.witness();
    const R1cs r = compile(cs);
    const CsrMatrix* m[3] = {&r.a, &r.b, &r.c};
    for (int k = 0; k < 3; ++k)
      for (int row = 0; row < rows; ++row)
        ASSERT_EQ(csr_row(*m[k], w, row), naive(lcs[k][row], w))
            << "matrix " << k << " row " << row;
  }
}

}  // namespace
