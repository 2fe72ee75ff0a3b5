// G1 and G2 (typed tests over both): the generators, every point form (affine, Jacobian,
// XYZZ) against a textbook affine chord-and-tangent reference on random multiples of the
// generator, the special branches (doubling inside add, P + (-P), the point at infinity),
// scalar multiplication (known answers from the Python oracle, linearity, r·G = O), batch
// conversion to affine, and the endomorphism-based subgroup checks against r·P = O on points
// inside and outside the subgroup.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "core/curve/g1.hpp"
#include "core/curve/g2.hpp"
#include "core/curve/scalar_mul.hpp"
#include "core/field/fr.hpp"
#include "tests/cpp/test_util.hpp"

namespace {

using prooflab::field::BigInt;
using prooflab::field::Fp;
using prooflab::field::Fp2;
using prooflab::field::Fr;
using prooflab::field::FrParams;
using namespace prooflab::curve;
namespace pt = prooflab::test;

// |x| of the curve parameter x = -0xd201000000010000 (REFERENCE.md), and x^2 as two limbs.
constexpr std::uint64_t kXAbs = 0xd201000000010000ULL;
constexpr BigInt<2> kXSquared = {
    static_cast<std::uint64_t>(static_cast<prooflab::field::u128>(kXAbs) * kXAbs),
    static_cast<std::uint64_t>((static_cast<prooflab::field::u128>(kXAbs) * kXAbs) >> 64)};
// h1, the cofactor of G1 (REFERENCE.md).
constexpr BigInt<2> kG1Cofactor = {0x8c00aaab0000aaabULL, 0x396c8c005555e156ULL};

struct G1Traits {
  using Field = Fp;
  using AffinePoint = G1Affine;
  using Jac = G1Jacobian;
  using XyzzPoint = G1Xyzz;
  static constexpr const char* kVectorTag = "g1";
  static AffinePoint generator() { return g1_generator(); }
  static Field b() { return Fp::from_u64(4); }
  static bool in_subgroup(const Jac& p) { return g1_is_in_subgroup(p); }
  static bool in_subgroup(const AffinePoint& p) { return g1_is_in_subgroup(p); }
  static std::optional<Field> sqrt(const Field& a) { return prooflab::field::sqrt(a); }
  static AffinePoint from_hex(const std::vector<std::string>& c) {
    return {Fp::from_hex(c.at(0)), Fp::from_hex(c.at(1))};
  }
};

struct G2Traits {
  using Field = Fp2;
  using AffinePoint = G2Affine;
  using Jac = G2Jacobian;
  using XyzzPoint = G2Xyzz;
  static constexpr const char* kVectorTag = "g2";
  static AffinePoint generator() { return g2_generator(); }
  static Field b() { return {Fp::from_u64(4), Fp::from_u64(4)}; }
  static bool in_subgroup(const Jac& p) { return g2_is_in_subgroup(p); }
  static bool in_subgroup(const AffinePoint& p) { return g2_is_in_subgroup(p); }
  static std::optional<Field> sqrt(const Field& a) { return prooflab::field::sqrt(a); }
  static AffinePoint from_hex(const std::vector<std::string>& c) {
    return {{Fp::from_hex(c.at(0)), Fp::from_hex(c.at(1))},
            {Fp::from_hex(c.at(2)), Fp::from_hex(c.at(3))}};
  }
};

// Textbook affine addition (chord and tangent with one inversion): the independent reference
// every projective formula is compared with.
template <class A>
A reference_add(const A& p, const A& q) {
  using F = typename A::Field;
  if (p.is_infinity()) return q;
  if (q.is_infinity()) return p;
  F lambda;
  if (p.x == q.x) {
    if (p.y == -q.y) return A::infinity();
    const F x2 = p.x.square();
    lambda = (x2 + x2 + x2) * (p.y + p.y).inverse();
  } else {
    lambda = (q.y - p.y) * (q.x - p.x).inverse();
  }
  const F x3 = lambda.square() - p.x - q.x;
  return {x3, lambda * (p.x - x3) - p.y};
}

template <class Traits>
class Curve : public ::testing::Test {
 protected:
  using Field = typename Traits::Field;
  using AffinePoint = typename Traits::AffinePoint;
  using Jac = typename Traits::Jac;
  using XyzzPoint = typename Traits::XyzzPoint;

  void SetUp() override { rng_ = pt::test_rng(); }

  Jac gen() const { return Jac::from_affine(Traits::generator()); }
  Fr random_scalar() { return Fr::random(rng_); }
  // A random element of the subgroup: k·G for a uniform k (every third one a 64-bit k, which
  // is cheaper and still a generic point).
  Jac random_point() {
    if (rng_() % 3 == 0) return scalar_mul(gen(), BigInt<1>{rng_()});
    return scalar_mul(gen(), random_scalar());
  }
  Field random_nonzero() {
    for (;;) {
      const Field z = Field::random(rng_);
      if (!z.is_zero()) return z;
    }
  }
  // The same point with a random Z: (λ^2 X, λ^3 Y, λ Z).
  Jac rescale(const Jac& p) {
    if (p.is_infinity()) return p;
    const Field l = random_nonzero(), l2 = l.square();
    return {p.X * l2, p.Y * l2 * l, p.Z * l};
  }
  XyzzPoint to_xyzz(const AffinePoint& p) {
    if (p.is_infinity()) return XyzzPoint::infinity();
    const Field l = random_nonzero(), l2 = l.square(), l3 = l2 * l;
    return {p.x * l2, p.y * l3, l2, l3};
  }
  // A point on the curve that is (almost surely) not in the order-r subgroup: a random x
  // with x^3 + b a square.
  AffinePoint random_curve_point() {
    for (;;) {
      const Field x = Field::random(rng_);
      if (const auto y = Traits::sqrt(x.square() * x + Traits::b())) {
        const bool negate = rng_() & 1;
        return {x, negate ? -*y : *y};
      }
    }
  }
  static int cases(int release) { return pt::iterations(release, 2); }

  std::mt19937_64 rng_;
};

struct CurveNames {
  template <class T>
  static std::string GetName(int) {
    return std::is_same_v<T, G1Traits> ? "G1" : "G2";
  }
};
using CurveTypes = ::testing::Types<G1Traits, G2Traits>;
TYPED_TEST_SUITE(Curve, CurveTypes, CurveNames);

TYPED_TEST(Curve, GeneratorOnCurveAndInSubgroup) {
  using Jac = typename TestFixture::Jac;
  const auto g = TypeParam::generator();
  EXPECT_FALSE(g.is_infinity());
  EXPECT_TRUE(g.is_on_curve()) << ::testing::PrintToString(g);
  EXPECT_TRUE(Jac::from_affine(g).is_on_curve());
  EXPECT_TRUE(this->rescale(Jac::from_affine(g)).is_on_curve());
  EXPECT_TRUE(TypeParam::in_subgroup(g));
  EXPECT_TRUE(TypeParam::in_subgroup(Jac::from_affine(g)));
  EXPECT_TRUE(is_torsion_free_by_order(Jac::from_affine(g)));
  EXPECT_FALSE(scalar_mul(Jac::from_affine(g), BigInt<1>{1}).is_infinity());
  EXPECT_EQ(Jac::from_affine(g).to_affine(), g);
}

TEST(CurveConstants, CurveCoefficientsAndParameter) {
  EXPECT_EQ(G1Curve::b(), Fp::from_u64(4));
  EXPECT_EQ(G2Curve::b(), (Fp2{Fp::from_u64(4), Fp::from_u64(4)}));
  EXPECT_EQ(kBlsXAbs, kXAbs);
  EXPECT_TRUE(kBlsXIsNegative);
}

// 2·G1 from REFERENCE.md, by every doubling path.
TEST(CurveKnownAnswers, TwoTimesG1MatchesReference) {
  const G1Affine want{
      Fp::from_hex(
          "0x0572cbea904d67468808c8eb50a9450c9721db309128012543902d0ac358a62ae28f75bb8f1c7c"
          "42c39a8c5529bf0f4e"),
      Fp::from_hex(
          "0x166a9d8cabc673a322fda673779d8e3822ba3ecb8670e461f73bb9021d5fd76a4c56d9d4cd16bd"
          "1bba86881979749d28")};
  const G1Affine g = g1_generator();
  EXPECT_EQ(G1Jacobian::from_affine(g).dbl().to_affine(), want);
  EXPECT_EQ(G1Jacobian::from_affine(g).add(G1Jacobian::from_affine(g)).to_affine(), want);
  EXPECT_EQ(G1Jacobian::from_affine(g).add_mixed(g).to_affine(), want);
  EXPECT_EQ(G1Xyzz::from_affine(g).dbl().to_affine(), want);
  EXPECT_EQ(G1Xyzz::dbl_affine(g).to_affine(), want);
  EXPECT_EQ(G1Xyzz::from_affine(g).add_mixed(g).to_affine(), want);
  EXPECT_EQ(scalar_mul(G1Jacobian::from_affine(g), BigInt<1>{2}).to_affine(), want);
  EXPECT_EQ(reference_add(g, g), want);
}

// k·G from tests/data/curve_vectors.txt (the oracle's affine double-and-add).
TYPED_TEST(Curve, ScalarMulMatchesOracleVectors) {
  const auto vectors = pt::curve_vectors(TypeParam::kVectorTag);
  ASSERT_GE(vectors.size(), 9u) << "tests/data/curve_vectors.txt has too few "
                                << TypeParam::kVectorTag << " rows";
  for (const auto& v : vectors) {
    const auto want = TypeParam::from_hex(v.coords);
    ASSERT_TRUE(want.is_on_curve()) << "vector k=" << v.k << " is not on the curve";
    const auto k = prooflab::field::bigint_from_hex<4>(v.k);
    EXPECT_EQ(scalar_mul(this->gen(), k).to_affine(), want) << "k = 0x" << v.k;
    EXPECT_EQ(scalar_mul(this->gen(), Fr::from_canonical(k)).to_affine(), want) << "k = 0x" << v.k;
    EXPECT_TRUE(TypeParam::in_subgroup(want)) << "k = 0x" << v.k;
    if (v.k == "2") {
      EXPECT_EQ(this->gen().dbl().to_affine(), want);
      EXPECT_EQ(TestFixture::XyzzPoint::dbl_affine(TypeParam::generator()).to_affine(), want);
    }
  }
}

// Every form of addition and doubling agrees with the affine reference on random points given
// in random representations.
TYPED_TEST(Curve, AllFormsAgreeWithAffineReference) {
  using Jac = typename TestFixture::Jac;
  using XyzzPoint = typename TestFixture::XyzzPoint;
  SCOPED_TRACE(pt::seed_note());
  for (int i = 0; i < this->cases(40); ++i) {
    const Jac p = this->rescale(this->random_point()), q = this->rescale(this->random_point());
    const auto pa = p.to_affine(), qa = q.to_affine();
    ASSERT_TRUE(p.is_on_curve() && q.is_on_curve());
    ASSERT_TRUE(pa.is_on_curve() && qa.is_on_curve());
    const auto sum = reference_add(pa, qa), twice = reference_add(pa, pa);
    const auto diff = reference_add(pa, -qa);
    SCOPED_TRACE("P = " + ::testing::PrintToString(pa) + "\nQ = " + ::testing::PrintToString(qa));

    // Jacobian.
    const Jac j_sum = p.add(q);
    EXPECT_TRUE(j_sum.is_on_curve());
    EXPECT_EQ(j_sum.to_affine(), sum) << "Jacobian add";
    EXPECT_EQ(q.add(p).to_affine(), sum) << "Jacobian add, swapped";
    EXPECT_EQ(p.add_mixed(qa).to_affine(), sum) << "Jacobian add_mixed";
    EXPECT_EQ(p.dbl().to_affine(), twice) << "Jacobian dbl";
    EXPECT_TRUE(p.dbl().is_on_curve());
    EXPECT_EQ(p.sub(q).to_affine(), diff) << "Jacobian sub";
    EXPECT_EQ((-p).to_affine(), -pa);

    // XYZZ.
    const XyzzPoint xp = this->to_xyzz(pa), xq = this->to_xyzz(qa);
    ASSERT_EQ(xp.to_affine(), pa) << "XYZZ to_affine of a rescaled point";
    const XyzzPoint x_sum = xp.add(xq);
    EXPECT_EQ(x_sum.to_affine(), sum) << "XYZZ add";
    EXPECT_EQ(xq.add(xp).to_affine(), sum) << "XYZZ add, swapped";
    EXPECT_EQ(xp.add_mixed(qa).to_affine(), sum) << "XYZZ add_mixed";
    EXPECT_EQ(xp.dbl().to_affine(), twice) << "XYZZ dbl";
    EXPECT_EQ(XyzzPoint::dbl_affine(pa).to_affine(), twice) << "XYZZ dbl_affine";
    EXPECT_EQ((-xp).to_affine(), -pa);
    EXPECT_EQ(XyzzPoint::from_affine(pa).to_affine(), pa);

    // XYZZ -> Jacobian keeps the point (and stays on the curve).
    const Jac x_sum_j = x_sum.to_jacobian();
    EXPECT_TRUE(x_sum_j.is_on_curve()) << "XYZZ to_jacobian";
    EXPECT_EQ(x_sum_j, j_sum) << "XYZZ to_jacobian vs Jacobian add";
    EXPECT_EQ(x_sum_j.to_affine(), sum);
    EXPECT_EQ(xp.dbl().to_jacobian(), p.dbl());

    // Chains mixing the forms: ((P + Q) + P) + 2Q.
    const auto chain = reference_add(reference_add(sum, pa), reference_add(qa, qa));
    EXPECT_EQ(j_sum.add_mixed(pa).add(q.dbl()).to_affine(), chain) << "Jacobian chain";
    EXPECT_EQ(x_sum.add_mixed(pa).add(xq.dbl()).to_affine(), chain) << "XYZZ chain";
  }
}

// The special cases inside add / add_mixed: the same point in another representation takes
// the doubling branch, its negation gives O, and O is the identity everywhere.
TYPED_TEST(Curve, DoublingInverseAndInfinityBranches) {
  using Jac = typename TestFixture::Jac;
  using XyzzPoint = typename TestFixture::XyzzPoint;
  using AffinePoint = typename TestFixture::AffinePoint;
  SCOPED_TRACE(pt::seed_note());
  const Jac o = Jac::infinity();
  const XyzzPoint xo = XyzzPoint::infinity();
  const AffinePoint ao = AffinePoint::infinity();
  for (int i = 0; i < this->cases(20); ++i) {
    const Jac p = this->rescale(this->random_point());
    const Jac p2 = this->rescale(p);  // same point, different Z
    const AffinePoint pa = p.to_affine();
    const AffinePoint twice = reference_add(pa, pa);
    SCOPED_TRACE("P = " + ::testing::PrintToString(pa));
    ASSERT_EQ(p, p2);

    // add(P, P) takes the doubling branch.
    EXPECT_EQ(p.add(p2).to_affine(), twice) << "Jacobian add(P, P')";
    EXPECT_EQ(p.add(p).to_affine(), twice) << "Jacobian add(P, P)";
    EXPECT_EQ(p.add_mixed(pa).to_affine(), twice) << "Jacobian add_mixed(P, P)";
    EXPECT_EQ(p.add(p2), p.dbl());
    const XyzzPoint xp = this->to_xyzz(pa), xp2 = this->to_xyzz(pa);
    EXPECT_EQ(xp.add(xp2).to_affine(), twice) << "XYZZ add(P, P')";
    EXPECT_EQ(xp.add(xp).to_affine(), twice) << "XYZZ add(P, P)";
    EXPECT_EQ(xp.add_mixed(pa).to_affine(), twice) << "XYZZ add_mixed(P, P)";

    // P + (-P) = O.
    EXPECT_TRUE(p.add(-p2).is_infinity()) << "Jacobian add(P, -P)";
    EXPECT_TRUE(p.add_mixed(-pa).is_infinity()) << "Jacobian add_mixed(P, -P)";
    EXPECT_TRUE(p.sub(p2).is_infinity()) << "Jacobian sub(P, P)";
    EXPECT_TRUE(xp.add(-xp2).is_infinity()) << "XYZZ add(P, -P)";
    EXPECT_TRUE(xp.add_mixed(-pa).is_infinity()) << "XYZZ add_mixed(P, -P)";
    EXPECT_TRUE(reference_add(pa, -pa).is_infinity());

    // P + O = O + P = P.
    EXPECT_EQ(p.add(o), p);
    EXPECT_EQ(o.add(p), p);
    EXPECT_EQ(p.add_mixed(ao), p);
    EXPECT_EQ(o.add_mixed(pa).to_affine(), pa);
    EXPECT_EQ(xp.add(xo).to_affine(), pa);
    EXPECT_EQ(xo.add(xp).to_affine(), pa);
    EXPECT_EQ(xp.add_mixed(ao).to_affine(), pa);
    EXPECT_EQ(xo.add_mixed(pa).to_affine(), pa);
  }
  // O with itself, in every form.
  EXPECT_TRUE(o.add(o).is_infinity());
  EXPECT_TRUE(o.dbl().is_infinity());
  EXPECT_TRUE(o.add_mixed(ao).is_infinity());
  EXPECT_TRUE((-o).is_infinity());
  EXPECT_TRUE(o.is_on_curve());
  EXPECT_TRUE(o.to_affine().is_infinity());
  EXPECT_TRUE(Jac::from_affine(ao).is_infinity());
  EXPECT_TRUE(xo.add(xo).is_infinity());
  EXPECT_TRUE(xo.dbl().is_infinity());
  EXPECT_TRUE(xo.add_mixed(ao).is_infinity());
  EXPECT_TRUE(XyzzPoint::dbl_affine(ao).is_infinity());
  EXPECT_TRUE(xo.to_affine().is_infinity());
  EXPECT_TRUE(xo.to_jacobian().is_infinity());
  EXPECT_TRUE(XyzzPoint::from_affine(ao).is_infinity());
  EXPECT_TRUE(ao.is_on_curve());
  EXPECT_TRUE((-ao).is_infinity());
}

// Jacobian equality compares points, not coordinates.
TYPED_TEST(Curve, EqualityAcrossRepresentations) {
  using Jac = typename TestFixture::Jac;
  using Field = typename TestFixture::Field;
  SCOPED_TRACE(pt::seed_note());
  for (int i = 0; i < this->cases(20); ++i) {
    const Jac p = this->random_point(), q = this->random_point();
    const Jac p1 = this->rescale(p), p2 = this->rescale(p);
    EXPECT_EQ(p1, p2);
    EXPECT_EQ(p2, p1);
    EXPECT_EQ(p1.to_affine(), p2.to_affine());
    EXPECT_FALSE(p1 == -p2) << "P == -P";
    EXPECT_FALSE(p1 == this->rescale(q)) << "P == Q";
    EXPECT_FALSE(p1 == Jac::infinity());
    EXPECT_FALSE(Jac::infinity() == p1);
    // Any Z = 0 triple is O, whatever X and Y hold.
    const Jac odd_infinity{Field::random(this->rng_), Field::random(this->rng_), Field::zero()};
    EXPECT_EQ(odd_infinity, Jac::infinity());
    EXPECT_TRUE(odd_infinity.to_affine().is_infinity());
  }
}

// Points off the curve are recognised in every representation.
TYPED_TEST(Curve, OffCurvePointsAreRejected) {
  using Jac = typename TestFixture::Jac;
  using AffinePoint = typename TestFixture::AffinePoint;
  using Field = typename TestFixture::Field;
  SCOPED_TRACE(pt::seed_note());
  for (int i = 0; i < this->cases(50); ++i) {
    const AffinePoint pa = this->random_point().to_affine();
    const AffinePoint off{pa.x, pa.y + Field::one()};
    EXPECT_FALSE(off.is_on_curve());
    EXPECT_FALSE(this->rescale(Jac::from_affine(off)).is_on_curve());
  }
  // (0, 0) is the encoding of O, never a curve point (b != 0).
  EXPECT_TRUE(AffinePoint::infinity().is_infinity());
  EXPECT_FALSE((AffinePoint{Field::zero(), Field::one()}).is_on_curve());
}

TYPED_TEST(Curve, ScalarMulIsLinear) {
  using Jac = typename TestFixture::Jac;
  SCOPED_TRACE(pt::seed_note());
  const Jac g = this->gen();
  for (int i = 0; i < this->cases(10); ++i) {
    const Jac p = this->rescale(this->random_point());
    const Fr a = this->random_scalar(), b = this->random_scalar();
    SCOPED_TRACE("a = " + pt::hex(a) + ", b = " + pt::hex(b));
    const Jac ap = scalar_mul(p, a), bp = scalar_mul(p, b);
    EXPECT_EQ(scalar_mul(p, a + b), ap.add(bp)) << "(a+b)P != aP + bP";
    EXPECT_EQ(scalar_mul(bp, a), scalar_mul(p, a * b)) << "a(bP) != (ab)P";
    EXPECT_EQ(scalar_mul(p, a - b), ap.sub(bp)) << "(a-b)P != aP - bP";
    // The integer a + r (five limbs) acts like a: r·P = O.
    BigInt<5> a_plus_r{};
    const auto ac = a.to_canonical();
    for (int k = 0; k < 4; ++k) a_plus_r[k] = ac[k];
    BigInt<5> r5{};
    for (int k = 0; k < 4; ++k) r5[k] = FrParams::kModulus[k];
    prooflab::field::bigint_add(a_plus_r, r5);
    EXPECT_EQ(scalar_mul(p, a_plus_r), ap) << "(a + r)P != aP";
    EXPECT_TRUE(scalar_mul(p, FrParams::kModulus).is_infinity()) << "r·P != O";
  }
  EXPECT_TRUE(scalar_mul(g, FrParams::kModulus).is_infinity()) << "r·G != O";
  EXPECT_TRUE(scalar_mul(g, BigInt<1>{0}).is_infinity());
  EXPECT_TRUE(scalar_mul(g, Fr::zero()).is_infinity());
  EXPECT_EQ(scalar_mul(g, BigInt<1>{1}), g);
  EXPECT_EQ(scalar_mul(g, -Fr::one()), -g) << "(r-1)·G != -G";
  EXPECT_TRUE(scalar_mul(Jac::infinity(), this->random_scalar()).is_infinity());
  // Small multiples by repeated addition.
  Jac acc = Jac::infinity();
  for (std::uint64_t k = 0; k < 20; ++k) {
    EXPECT_EQ(scalar_mul(g, BigInt<1>{k}), acc) << k << "·G";
    acc = acc.add(g);
  }
}

TYPED_TEST(Curve, BatchToAffineMatchesPerPoint) {
  using Jac = typename TestFixture::Jac;
  using AffinePoint = typename TestFixture::AffinePoint;
  SCOPED_TRACE(pt::seed_note());
  // Points generated cheaply by a walk k·G + m·P, with O at the ends, in the middle and in a
  // run of two.
  const Jac step = this->random_point();
  std::vector<Jac> in;
  Jac cur = this->random_point();
  const int n = pt::iterations(64, 12);
  for (int i = 0; i < n; ++i) {
    const bool infinity =
        i == 0 || i == n - 1 || i == n / 2 || i == n / 2 + 1 || this->rng_() % 8 == 0;
    in.push_back(infinity ? Jac::infinity() : this->rescale(cur));
    cur = cur.add(step);
  }
  std::vector<AffinePoint> out(in.size(), TypeParam::generator());
  batch_to_affine(std::span<const Jac>(in), std::span<AffinePoint>(out));
  for (std::size_t i = 0; i < in.size(); ++i) EXPECT_EQ(out[i], in[i].to_affine()) << "index " << i;

  // Empty, one point, only infinities.
  std::vector<AffinePoint> none;
  batch_to_affine(std::span<const Jac>(), std::span<AffinePoint>(none));
  const std::vector<Jac> single{this->rescale(step)};
  std::vector<AffinePoint> single_out(1);
  batch_to_affine(std::span<const Jac>(single), std::span<AffinePoint>(single_out));
  EXPECT_EQ(single_out[0], step.to_affine());
  const std::vector<Jac> infinities(3, Jac::infinity());
  std::vector<AffinePoint> inf_out(3, TypeParam::generator());
  batch_to_affine(std::span<const Jac>(infinities), std::span<AffinePoint>(inf_out));
  for (const auto& a : inf_out) EXPECT_TRUE(a.is_infinity());
}

// The fast subgroup checks agree with r·P = O inside the subgroup (random multiples of the
// generator) and outside it (random curve points).
TYPED_TEST(Curve, SubgroupCheckAgreesWithOrder) {
  using Jac = typename TestFixture::Jac;
  using AffinePoint = typename TestFixture::AffinePoint;
  SCOPED_TRACE(pt::seed_note());
  for (int i = 0; i < this->cases(10); ++i) {
    const Jac p = this->rescale(this->random_point());
    EXPECT_TRUE(is_torsion_free_by_order(p));
    EXPECT_TRUE(TypeParam::in_subgroup(p)) << ::testing::PrintToString(p);
    EXPECT_TRUE(TypeParam::in_subgroup(p.to_affine()));
  }
  int outside = 0;
  for (int i = 0; i < this->cases(10); ++i) {
    const AffinePoint q = this->random_curve_point();
    ASSERT_TRUE(q.is_on_curve());
    const Jac qj = this->rescale(Jac::from_affine(q));
    const bool by_order = is_torsion_free_by_order(qj);
    EXPECT_EQ(TypeParam::in_subgroup(qj), by_order) << ::testing::PrintToString(q);
    EXPECT_EQ(TypeParam::in_subgroup(q), by_order) << ::testing::PrintToString(q);
    outside += !by_order;
    // Adding a subgroup element keeps it outside.
    const Jac shifted = qj.add(this->random_point());
    EXPECT_EQ(TypeParam::in_subgroup(shifted), is_torsion_free_by_order(shifted));
  }
  EXPECT_EQ(outside, this->cases(10)) << "random curve points should lie outside the subgroup";
  EXPECT_TRUE(TypeParam::in_subgroup(Jac::infinity()));
  EXPECT_TRUE(TypeParam::in_subgroup(AffinePoint::infinity()));
}

// G1 cofactor clearing lands in the subgroup; the order-3 point (0, 2) and its translates do
// not.
TEST(G1Subgroup, CofactorAndSmallTorsion) {
  auto rng = pt::test_rng();
  SCOPED_TRACE(pt::seed_note());
  for (int i = 0; i < pt::iterations(10, 2); ++i) {
    G1Affine q;
    for (;;) {
      const Fp x = Fp::random(rng);
      if (const auto y = prooflab::field::sqrt(x.square() * x + Fp::from_u64(4))) {
        q = {x, *y};
        break;
      }
    }
    const G1Jacobian cleared = scalar_mul(G1Jacobian::from_affine(q), kG1Cofactor);
    EXPECT_TRUE(is_torsion_free_by_order(cleared));
    EXPECT_TRUE(g1_is_in_subgroup(cleared)) << ::testing::PrintToString(q);
  }
  const G1Affine t3{Fp::zero(), Fp::from_u64(2)};
  ASSERT_TRUE(t3.is_on_curve());
  const G1Jacobian t3j = G1Jacobian::from_affine(t3);
  EXPECT_TRUE(scalar_mul(t3j, BigInt<1>{3}).is_infinity()) << "(0, 2) has order 3";
  EXPECT_FALSE(g1_is_in_subgroup(t3j));
  EXPECT_FALSE(is_torsion_free_by_order(t3j));
  const G1Jacobian shifted =
      t3j.add(scalar_mul(G1Jacobian::from_affine(g1_generator()), BigInt<1>{rng()}));
  EXPECT_FALSE(g1_is_in_subgroup(shifted));
  EXPECT_FALSE(is_torsion_free_by_order(shifted));
}

// φ(x, y) = (βx, y) acts on G1 as -x^2; it has order 3.
TEST(G1Endomorphism, IsMinusXSquared) {
  auto rng = pt::test_rng();
  SCOPED_TRACE(pt::seed_note());
  const G1Jacobian g = G1Jacobian::from_affine(g1_generator());
  for (int i = 0; i < pt::iterations(20, 3); ++i) {
    const G1Jacobian p = i == 0 ? g : scalar_mul(g, Fr::random(rng));
    const G1Jacobian phi = g1_endomorphism(p);
    EXPECT_TRUE(phi.is_on_curve());
    EXPECT_EQ(phi, -scalar_mul(p, kXSquared)) << ::testing::PrintToString(p);
    EXPECT_EQ(g1_endomorphism(g1_endomorphism(phi)), p) << "φ^3 != identity";
    EXPECT_FALSE(phi == p);
  }
  EXPECT_TRUE(g1_endomorphism(G1Jacobian::infinity()).is_infinity());
}

// ψ acts on G2 as multiplication by x (ψ(P) = [p]P and p ≡ x mod r), so ψ^2 is x^2.
TEST(G2Endomorphism, PsiIsMultiplicationByX) {
  auto rng = pt::test_rng();
  SCOPED_TRACE(pt::seed_note());
  const G2Jacobian g = G2Jacobian::from_affine(g2_generator());
  for (int i = 0; i < pt::iterations(10, 2); ++i) {
    G2Jacobian p = i == 0 ? g : scalar_mul(g, Fr::random(rng));
    if (i % 2 == 1) {  // a non-trivial Z
      const Fp2 l = Fp2::random(rng), l2 = l.square();
      p = {p.X * l2, p.Y * l2 * l, p.Z * l};
    }
    const G2Jacobian psi = g2_psi(p);
    EXPECT_TRUE(psi.is_on_curve());
    const G2Jacobian x_p = -scalar_mul(p, BigInt<1>{kXAbs});  // x < 0
    EXPECT_EQ(psi, x_p) << ::testing::PrintToString(p);
    EXPECT_EQ(g2_psi(psi), scalar_mul(p, kXSquared)) << "ψ^2 != x^2";
  }
  EXPECT_TRUE(g2_psi(G2Jacobian::infinity()).is_infinity());
}

}  // namespace
