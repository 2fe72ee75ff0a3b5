// The extension tower Fp2 = Fp[u]/(u^2+1), Fp6 = Fp2[v]/(v^3-ξ), Fp12 = Fp6[w]/(w^2-v) on
// seeded random elements: field axioms, the sparse multiplications of the Miller loop against
// full multiplication, Frobenius against exponentiation by p, the Fp2 square root, and the
// cyclotomic squaring of the final exponentiation.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "core/field/fp12.hpp"
#include "core/field/frobenius.hpp"
#include "tests/cpp/test_util.hpp"

namespace {

using prooflab::field::BigInt;
using prooflab::field::Fp;
using prooflab::field::Fp12;
using prooflab::field::Fp2;
using prooflab::field::Fp6;
using prooflab::field::FpParams;
namespace pt = prooflab::test;

// x^e by square-and-multiply over operator* (Fp6 has no pow of its own; for Fp2 and Fp12 it
// is an independent cross-check of their member pow).
template <class T, std::size_t M>
T generic_pow(const T& x, const BigInt<M>& e) {
  T acc = T::one();
  for (std::size_t i = prooflab::field::bigint_num_bits(e); i-- > 0;) {
    acc = acc * acc;
    if (prooflab::field::bigint_bit(e, i)) acc = acc * x;
  }
  return acc;
}

const Fp2 kXi{Fp::one(), Fp::one()};  // ξ = 1 + u

// Per-type sizes: degree over Fp (the order of the Frobenius), random cases for the cheap
// identities and for x^p (about 570 multiplications each).
template <class T>
struct TowerTraits;
template <>
struct TowerTraits<Fp2> {
  static constexpr unsigned kDegree = 2;
  static constexpr int kCases = 2000, kPowCases = 200;
};
template <>
struct TowerTraits<Fp6> {
  static constexpr unsigned kDegree = 6;
  static constexpr int kCases = 500, kPowCases = 50;
};
template <>
struct TowerTraits<Fp12> {
  static constexpr unsigned kDegree = 12;
  static constexpr int kCases = 200, kPowCases = 20;
};

template <class T>
class Tower : public ::testing::Test {
 protected:
  void SetUp() override { rng_ = pt::test_rng(); }
  T random() { return T::random(rng_); }
  T random_nonzero() {
    for (;;) {
      const T x = random();
      if (!(x == T::zero())) return x;
    }
  }
  static int cases() { return pt::iterations(TowerTraits<T>::kCases, 10); }
  static int pow_cases() { return pt::iterations(TowerTraits<T>::kPowCases, 2); }
  std::mt19937_64 rng_;
};

struct TowerNames {
  template <class T>
  static std::string GetName(int) {
    if (std::is_same_v<T, Fp2>) return "Fp2";
    if (std::is_same_v<T, Fp6>) return "Fp6";
    return "Fp12";
  }
};
using TowerTypes = ::testing::Types<Fp2, Fp6, Fp12>;
TYPED_TEST_SUITE(Tower, TowerTypes, TowerNames);

TYPED_TEST(Tower, FieldAxioms) {
  using T = TypeParam;
  SCOPED_TRACE(pt::seed_note());
  const T zero = T::zero(), one = T::one();
  for (int i = 0; i < this->cases(); ++i) {
    const T a = this->random(), b = this->random(), c = this->random();
    ASSERT_EQ((a + b) + c, a + (b + c)) << "a=" << pt::hex(a) << " b=" << pt::hex(b);
    ASSERT_EQ(a + b, b + a);
    ASSERT_EQ((a * b) * c, a * (b * c))
        << "a=" << pt::hex(a) << " b=" << pt::hex(b) << " c=" << pt::hex(c);
    ASSERT_EQ(a * b, b * a) << "a=" << pt::hex(a) << " b=" << pt::hex(b);
    ASSERT_EQ(a * (b + c), a * b + a * c) << "a=" << pt::hex(a);
    ASSERT_EQ((a - b) + b, a);
    ASSERT_EQ(a - a, zero);
    ASSERT_EQ(a + zero, a);
    ASSERT_EQ(a * one, a);
    ASSERT_EQ(a * zero, zero);
    ASSERT_EQ(a.square(), a * a) << "a=" << pt::hex(a);
    ASSERT_EQ((a + b).square(), a.square() + (a * b) + (a * b) + b.square());
    T compound = a;
    compound *= b;
    compound = compound + c;
    compound = compound - a;
    ASSERT_EQ(compound, a * b + c - a);
    if (!(a == zero)) {
      ASSERT_EQ(a * a.inverse(), one) << "a=" << pt::hex(a);
      ASSERT_EQ(a.inverse().inverse(), a);
    }
  }
  EXPECT_EQ(zero.inverse(), zero) << "inverse(0) = 0 by convention";
  EXPECT_EQ(one.inverse(), one);
  EXPECT_EQ(one.square(), one);
}

// x.frobenius() is x^p, it is additive and multiplicative, and its degree-th iterate is the
// identity.
TYPED_TEST(Tower, FrobeniusIsPowerOfP) {
  using T = TypeParam;
  SCOPED_TRACE(pt::seed_note());
  for (int i = 0; i < this->pow_cases(); ++i) {
    const T a = this->random();
    ASSERT_EQ(a.frobenius(), generic_pow(a, FpParams::kModulus)) << "a=" << pt::hex(a);
    if constexpr (requires { a.pow(FpParams::kModulus); }) {  // Fp2 and Fp12 have their own pow
      ASSERT_EQ(a.frobenius(), a.pow(FpParams::kModulus)) << "a=" << pt::hex(a);
    }
  }
  for (int i = 0; i < this->cases() / 4; ++i) {
    const T a = this->random(), b = this->random();
    ASSERT_EQ((a * b).frobenius(), a.frobenius() * b.frobenius());
    ASSERT_EQ((a + b).frobenius(), a.frobenius() + b.frobenius());
    T x = a;
    for (unsigned k = 0; k < TowerTraits<T>::kDegree; ++k) x = x.frobenius();
    ASSERT_EQ(x, a) << "Frobenius^" << TowerTraits<T>::kDegree << " != identity";
  }
  // Fp is fixed.
  const T two = T::one() + T::one();
  EXPECT_EQ(two.frobenius(), two);
}

// ---- Fp2 ----

TEST(Fp2, DefiningRelationAndConjugate) {
  auto rng = pt::test_rng();
  SCOPED_TRACE(pt::seed_note());
  const Fp2 u{Fp::zero(), Fp::one()};
  EXPECT_EQ(u * u, -Fp2::one()) << "u^2 must be -1";
  EXPECT_EQ(u.square(), -Fp2::one());
  for (int i = 0; i < pt::iterations(1000, 20); ++i) {
    const Fp2 a = Fp2::random(rng), b = Fp2::random(rng);
    const Fp s = Fp::random(rng);
    ASSERT_EQ(a * s, (a * Fp2{s, Fp::zero()})) << "a=" << pt::hex(a) << " s=" << pt::hex(s);
    ASSERT_EQ(a.dbl(), a + a);
    ASSERT_EQ(-a + a, Fp2::zero());
    ASSERT_EQ(a.conjugate(), (Fp2{a.c0, Fp::zero()} - Fp2{Fp::zero(), a.c1}));
    ASSERT_EQ(a * a.conjugate(), (Fp2{a.norm(), Fp::zero()})) << "norm of " << pt::hex(a);
    ASSERT_EQ((a * b).conjugate(), a.conjugate() * b.conjugate());
    ASSERT_EQ(a.frobenius(), a.conjugate());
    // pow against repeated multiplication for small exponents.
    const std::uint64_t e = rng() % 64;
    Fp2 want = Fp2::one();
    for (std::uint64_t k = 0; k < e; ++k) want *= a;
    ASSERT_EQ(a.pow(BigInt<1>{e}), want) << "a=" << pt::hex(a) << " e=" << e;
    const BigInt<2> wide{rng(), rng()};
    ASSERT_EQ(a.pow(wide), generic_pow(a, wide));
  }
}

TEST(Fp2, MulByNonresidueIsMultiplicationByOnePlusU) {
  auto rng = pt::test_rng();
  SCOPED_TRACE(pt::seed_note());
  for (int i = 0; i < pt::iterations(2000, 20); ++i) {
    const Fp2 a = Fp2::random(rng);
    ASSERT_EQ(a.mul_by_nonresidue(), a * kXi) << "a=" << pt::hex(a);
  }
  EXPECT_EQ(Fp2::one().mul_by_nonresidue(), kXi);
}

// Squares: sqrt exists and squares back to the input (and is ± the root we started from).
// Non-squares: a is a square in Fp2 iff its norm c0^2 + c1^2 is a square in Fp, which decides
// independently of the algorithm whether nullopt is right.
TEST(Fp2, Sqrt) {
  using prooflab::field::sqrt;
  auto rng = pt::test_rng();
  SCOPED_TRACE(pt::seed_note());
  int squares = 0, non_squares = 0;
  for (int i = 0; i < pt::iterations(400, 20); ++i) {
    const Fp2 x = Fp2::random(rng);
    const Fp2 a = x.square();
    const auto s = sqrt(a);
    ASSERT_TRUE(s.has_value()) << "no root of the square " << pt::hex(a);
    ASSERT_EQ(s->square(), a) << "a=" << pt::hex(a);
    ASSERT_TRUE(*s == x || *s == -x) << "a=" << pt::hex(a);

    const Fp2 b = Fp2::random(rng);
    const bool is_square = b.norm().legendre() >= 0;
    const auto t = sqrt(b);
    ASSERT_EQ(t.has_value(), is_square) << "b=" << pt::hex(b);
    if (t) {
      ASSERT_EQ(t->square(), b) << "b=" << pt::hex(b);
    }
    (is_square ? squares : non_squares)++;
  }
  EXPECT_GT(squares, 0);
  EXPECT_GT(non_squares, 0);

  // Elements of Fp are all squares in Fp2; those that are non-residues in Fp have purely
  // imaginary roots (the α = -1 branch of the algorithm).
  int fp_non_residues = 0;
  for (int i = 0; i < pt::iterations(200, 20); ++i) {
    const Fp c = Fp::random(rng);
    const Fp2 a{c, Fp::zero()};
    const auto s = sqrt(a);
    ASSERT_TRUE(s.has_value()) << "Fp element " << pt::hex(c) << " has no root in Fp2";
    ASSERT_EQ(s->square(), a) << "c=" << pt::hex(c);
    if (c.legendre() == -1) {
      ++fp_non_residues;
      EXPECT_TRUE(s->c0.is_zero()) << "root of a non-residue of Fp must be in u·Fp";
    }
    // Purely imaginary inputs c·u.
    const Fp2 b{Fp::zero(), c};
    const auto t = sqrt(b);
    ASSERT_TRUE(t.has_value()) << "c·u, c=" << pt::hex(c);  // norm c^2 is a square
    ASSERT_EQ(t->square(), b);
  }
  EXPECT_GT(fp_non_residues, 0);

  const auto zero_root = sqrt(Fp2::zero());
  ASSERT_TRUE(zero_root.has_value());
  EXPECT_TRUE(zero_root->is_zero());
  const auto i_root = sqrt(-Fp2::one());
  ASSERT_TRUE(i_root.has_value());
  const Fp2 u{Fp::zero(), Fp::one()};
  EXPECT_TRUE(*i_root == u || *i_root == -u) << pt::hex(*i_root);
  // ξ = 1 + u is a non-square (it defines the sextic extension).
  EXPECT_FALSE(sqrt(kXi).has_value());
}

// The Zcash sign of an Fp2: exactly one of y and -y is "largest" (y != 0); c1 decides unless
// it is zero.
TEST(Fp2, LexicographicallyLargest) {
  auto rng = pt::test_rng();
  SCOPED_TRACE(pt::seed_note());
  for (int i = 0; i < pt::iterations(1000, 20); ++i) {
    const Fp2 y = Fp2::random(rng);
    ASSERT_NE(y.is_lexicographically_largest(), (-y).is_lexicographically_largest()) << pt::hex(y);
    ASSERT_EQ(y.is_lexicographically_largest(), y.c1.is_lexicographically_largest());
    const Fp2 real{y.c0, Fp::zero()};
    ASSERT_EQ(real.is_lexicographically_largest(), y.c0.is_lexicographically_largest());
  }
  EXPECT_FALSE(Fp2::zero().is_lexicographically_largest());
  EXPECT_FALSE(Fp2::one().is_lexicographically_largest());
  EXPECT_TRUE((-Fp2::one()).is_lexicographically_largest());
}

// ---- Fp6 ----

TEST(Fp6, DefiningRelation) {
  const Fp6 v{Fp2::zero(), Fp2::one(), Fp2::zero()};
  EXPECT_EQ(v * v * v, (Fp6{kXi, Fp2::zero(), Fp2::zero()})) << "v^3 must be ξ = 1 + u";
}

TEST(Fp6, SparseMultiplications) {
  auto rng = pt::test_rng();
  SCOPED_TRACE(pt::seed_note());
  const Fp6 v{Fp2::zero(), Fp2::one(), Fp2::zero()};
  for (int i = 0; i < pt::iterations(1000, 20); ++i) {
    const Fp6 a = Fp6::random(rng);
    const Fp2 b0 = Fp2::random(rng), b1 = Fp2::random(rng);
    ASSERT_EQ(a.mul_by_v(), a * v) << "a=" << pt::hex(a);
    ASSERT_EQ(a.mul_by_01(b0, b1), (a * Fp6{b0, b1, Fp2::zero()}))
        << "a=" << pt::hex(a) << " b0=" << pt::hex(b0) << " b1=" << pt::hex(b1);
    ASSERT_EQ(a * b0, (a * Fp6{b0, Fp2::zero(), Fp2::zero()}));
    ASSERT_EQ(-a + a, Fp6::zero());
  }
}

// γ_i = ξ^(i(p-1)/6), and γ_1 is the REFERENCE.md constant.
TEST(Fp6, FrobeniusCoefficients) {
  const auto& g = prooflab::field::frobenius_coefficients();
  const auto sixth = prooflab::field::bigint_div_small(
      prooflab::field::bigint_sub_small(FpParams::kModulus, 1), 6);
  BigInt<6> e{};
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(g[i], kXi.pow(e)) << "γ_" << i;
    prooflab::field::bigint_add(e, sixth);
  }
  EXPECT_EQ(pt::hex(g[1].c0.to_canonical()),
            "1904d3bf02bb0667c231beb4202c0d1f0fd603fd3cbd5f4f7b2443d784bab9c4f67ea53d63e7813d8d07"
            "75ed92235fb8");
  EXPECT_EQ(pt::hex(g[1].c1.to_canonical()),
            "00fc3e2b36c4e03288e9e902231f9fb854a14787b6c7b36fec0c8ec971f63c5f282d5ac14d6c7ec22cf7"
            "8a126ddc4af3");
  EXPECT_EQ(g[1].pow(BigInt<1>{6}),
            kXi.pow(prooflab::field::bigint_sub_small(FpParams::kModulus, 1)));
}

// ---- Fp12 ----

TEST(Fp12, DefiningRelation) {
  const Fp12 w{Fp6::zero(), Fp6::one()};
  const Fp6 v{Fp2::zero(), Fp2::one(), Fp2::zero()};
  EXPECT_EQ(w * w, (Fp12{v, Fp6::zero()})) << "w^2 must be v";
  EXPECT_EQ(w.square(), (Fp12{v, Fp6::zero()}));
}

// The Miller-loop line a0 + a2·w^2 + a3·w^3 is c0 = (a0, a2, 0), c1 = (0, a3, 0).
TEST(Fp12, MulByLineMatchesFullMultiplication) {
  auto rng = pt::test_rng();
  SCOPED_TRACE(pt::seed_note());
  for (int i = 0; i < pt::iterations(500, 20); ++i) {
    const Fp12 f = Fp12::random(rng);
    const Fp2 a0 = Fp2::random(rng), a2 = Fp2::random(rng), a3 = Fp2::random(rng);
    const Fp12 line{{a0, a2, Fp2::zero()}, {Fp2::zero(), a3, Fp2::zero()}};
    ASSERT_EQ(f.mul_by_line(a0, a2, a3), f * line)
        << "f=" << pt::hex(f) << "\na0=" << pt::hex(a0) << " a2=" << pt::hex(a2)
        << " a3=" << pt::hex(a3);
  }
  // Degenerate lines: the identity and zero coefficients.
  const Fp12 f = Fp12::random(rng);
  EXPECT_EQ(f.mul_by_line(Fp2::one(), Fp2::zero(), Fp2::zero()), f);
  EXPECT_EQ(f.mul_by_line(Fp2::zero(), Fp2::zero(), Fp2::zero()), Fp12::zero());
}

TEST(Fp12, FrobeniusPowersAndConjugate) {
  auto rng = pt::test_rng();
  SCOPED_TRACE(pt::seed_note());
  for (int i = 0; i < pt::iterations(100, 5); ++i) {
    const Fp12 a = Fp12::random(rng), b = Fp12::random(rng);
    ASSERT_EQ(a.frobenius(12), a) << "a=" << pt::hex(a);
    ASSERT_EQ(a.frobenius(6), a.conjugate()) << "a=" << pt::hex(a);
    ASSERT_EQ(a.frobenius(0), a);
    ASSERT_EQ(a.frobenius(2), a.frobenius().frobenius());
    ASSERT_EQ(a.frobenius(5).frobenius(7), a);
    ASSERT_EQ((a * b).conjugate(), a.conjugate() * b.conjugate());
    const BigInt<2> e{rng(), rng()};
    ASSERT_EQ(a.pow(e).frobenius(), a.frobenius().pow(e)) << "Frobenius commutes with pow";
  }
  // x^(p^2) via pow with the modulus twice.
  for (int i = 0; i < pt::iterations(4, 1); ++i) {
    const Fp12 a = Fp12::random(rng);
    EXPECT_EQ(a.frobenius(2), a.pow(FpParams::kModulus).pow(FpParams::kModulus));
  }
}

// Elements of the cyclotomic subgroup, h = g^(p^2+1) with g = f^(p^6-1) = conj(f)·f^-1,
// satisfy h^(p^6+1) = 1 (conj(h) = h^-1) and their cyclotomic square is their square.
TEST(Fp12, CyclotomicSquare) {
  auto rng = pt::test_rng();
  SCOPED_TRACE(pt::seed_note());
  for (int i = 0; i < pt::iterations(200, 10); ++i) {
    const Fp12 f = Fp12::random(rng);
    const Fp12 g = f.conjugate() * f.inverse();
    Fp12 h = g.frobenius(2) * g;
    ASSERT_TRUE((h.conjugate() * h).is_one()) << "not unitary: h=" << pt::hex(h);
    ASSERT_EQ(h.frobenius(4) * h, h.frobenius(2)) << "h^(p^4-p^2+1) != 1";
    for (int k = 0; k < 4; ++k) {
      ASSERT_EQ(h.cyclotomic_square(), h.square())
          << "h=" << pt::hex(h) << " (squaring " << k << ")";
      h = h.cyclotomic_square();
    }
  }
  EXPECT_EQ(Fp12::one().cyclotomic_square(), Fp12::one());
}

}  // namespace
