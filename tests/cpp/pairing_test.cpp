// The optimal ate pairing: the known answer of tests/data/pairing_vectors.txt (our pairing
// returns the CUBE of the literal value f^((p^12-1)/r), see core/pairing/pairing.hpp),
// e^r = 1, bilinearity, inverses, the multi-Miller loop and the product check of a Groth16
// verification, points at infinity, non-degeneracy, and what the final exponentiation kills.
#include <gtest/gtest.h>

#include <array>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/curve/g1.hpp"
#include "core/curve/g2.hpp"
#include "core/field/fr.hpp"
#include "core/pairing/pairing.hpp"
#include "tests/cpp/test_util.hpp"

namespace {

using prooflab::field::BigInt;
using prooflab::field::Fp;
using prooflab::field::Fp12;
using prooflab::field::Fp2;
using prooflab::field::Fp6;
using prooflab::field::Fr;
using prooflab::field::FrParams;
using namespace prooflab::curve;
using namespace prooflab::pairing;
namespace pt = prooflab::test;

using Pair = std::pair<G1Affine, G2Affine>;

// The coefficient label of index i in the file's order c0.c0.c0, c0.c0.c1, c0.c1.c0, ...
std::string coefficient_label(int i) {
  return "c" + std::to_string(i / 6) + ".c" + std::to_string((i / 2) % 3) + ".c" +
         std::to_string(i % 2);
}

Fp12 fp12_from_coefficients(const std::array<Fp, 12>& c) {
  auto fp2 = [&](int i) { return Fp2{c[i], c[i + 1]}; };
  return {{fp2(0), fp2(2), fp2(4)}, {fp2(6), fp2(8), fp2(10)}};
}

struct PairingVectors {
  Fp12 literal;  // f^((p^12-1)/r), the first block of the file
  Fp12 cube;     // its cube, the second block
};

// Parses tests/data/pairing_vectors.txt: two blocks of 12 "label hex" lines, each introduced
// by a comment line (the first names the literal exponent, the second the cube). Reports a
// test failure and returns nullopt when the file is missing or malformed.
std::optional<PairingVectors> load_pairing_vectors() {
  const std::string path = pt::test_data_path("pairing_vectors.txt");
  std::ifstream in(path);
  if (!in) {
    ADD_FAILURE() << "cannot open " << path << " (PROOFLAB_TEST_DATA_DIR is "
                  << PROOFLAB_TEST_DATA_DIR
                  << "); it is a copy of shared/oracle/pairing_vectors.txt";
    return std::nullopt;
  }
  std::vector<std::string> headers;
  std::vector<std::vector<std::pair<std::string, std::string>>> blocks;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    if (line[0] == '#') {
      headers.push_back(line);
      blocks.emplace_back();
      continue;
    }
    std::istringstream ls(line);
    std::string label, value;
    if (!(ls >> label >> value) || blocks.empty()) {
      ADD_FAILURE() << path << ": malformed line: " << line;
      return std::nullopt;
    }
    blocks.back().emplace_back(label, value);
  }
  if (blocks.size() != 2 || blocks[0].size() != 12 || blocks[1].size() != 12) {
    ADD_FAILURE() << path << ": expected two blocks of 12 coefficients, found " << blocks.size()
                  << " blocks";
    return std::nullopt;
  }
  if (headers[0].find("literal") == std::string::npos ||
      headers[1].find("^3") == std::string::npos) {
    ADD_FAILURE() << path << ": expected the literal block first and the cube second, headers:\n"
                  << headers[0] << "\n"
                  << headers[1];
    return std::nullopt;
  }
  std::array<Fp12, 2> values;
  for (int b = 0; b < 2; ++b) {
    std::array<Fp, 12> c;
    for (int i = 0; i < 12; ++i) {
      const auto& [label, hex] = blocks[b][i];
      if (label != coefficient_label(i)) {
        ADD_FAILURE() << path << ": block " << b << " line " << i << " is " << label
                      << ", expected " << coefficient_label(i);
        return std::nullopt;
      }
      const auto limbs = prooflab::field::bigint_from_hex<6>(hex);
      const auto v = Fp::from_canonical_checked(limbs);
      if (!v) {
        ADD_FAILURE() << path << ": " << label << " = " << hex << " is not below p";
        return std::nullopt;
      }
      c[i] = *v;
    }
    values[b] = fp12_from_coefficients(c);
  }
  return PairingVectors{values[0], values[1]};
}

G1Jacobian g1() { return G1Jacobian::from_affine(g1_generator()); }
G2Jacobian g2() { return G2Jacobian::from_affine(g2_generator()); }
G1Affine g1_mul(const Fr& k) { return scalar_mul(g1(), k).to_affine(); }
G2Affine g2_mul(const Fr& k) { return scalar_mul(g2(), k).to_affine(); }

// e(G1, G2), computed once per process.
const Fp12& e_generators() {
  static const Fp12 e = pairing(g1_generator(), g2_generator());
  return e;
}

TEST(PairingKnownAnswer, GeneratorsGiveTheCubeVector) {
  const auto vectors = load_pairing_vectors();
  ASSERT_TRUE(vectors.has_value());
  const Fp12 e = e_generators();
  EXPECT_EQ(e, vectors->cube) << "e(G1, G2) differs from the cube vector of pairing_vectors.txt";
  EXPECT_EQ(vectors->literal * vectors->literal * vectors->literal, vectors->cube)
      << "the file's literal value cubed is not its cube value";
  EXPECT_EQ(e, vectors->literal * vectors->literal * vectors->literal);
  EXPECT_NE(e, vectors->literal) << "we compute the cube, not the literal value";
  // Both are r-th roots of unity.
  EXPECT_TRUE(vectors->literal.pow(FrParams::kModulus).is_one());
  EXPECT_TRUE(vectors->cube.pow(FrParams::kModulus).is_one());
}

TEST(Pairing, ResultIsAnRthRootOfUnityAndNonDegenerate) {
  const Fp12 e = e_generators();
  EXPECT_FALSE(e.is_one()) << "e(G1, G2) = 1: degenerate";
  EXPECT_TRUE(e.pow(FrParams::kModulus).is_one()) << "e^r != 1";
  // In the cyclotomic subgroup the inverse is the conjugate.
  EXPECT_TRUE((e * e.conjugate()).is_one());
  EXPECT_EQ(e.inverse(), e.conjugate());
  EXPECT_EQ(e.cyclotomic_square(), e.square());
}

TEST(Pairing, Bilinearity) {
  auto rng = pt::test_rng();
  SCOPED_TRACE(pt::seed_note());
  const Fp12 e = e_generators();
  for (int i = 0; i < pt::iterations(3, 1); ++i) {
    const Fr a = Fr::random(rng), b = Fr::random(rng);
    SCOPED_TRACE("a = " + pt::hex(a) + ", b = " + pt::hex(b));
    const G1Affine ap = g1_mul(a);
    const G2Affine bq = g2_mul(b);
    const Fp12 e_ab = pairing(ap, bq);
    EXPECT_EQ(e_ab, e.pow((a * b).to_canonical())) << "e(aP, bQ) != e(P, Q)^(ab)";
    EXPECT_EQ(pairing(ap, g2_generator()), pairing(g1_generator(), g2_mul(a)))
        << "e(aP, Q) != e(P, aQ)";
    EXPECT_FALSE(e_ab.is_one());
  }
  // Additivity in each argument on random points.
  const Fr a = Fr::random(rng), b = Fr::random(rng), c = Fr::random(rng);
  const G1Affine p1 = g1_mul(a), p2 = g1_mul(b);
  const G2Affine q = g2_mul(c);
  const G1Affine p12 = G1Jacobian::from_affine(p1).add_mixed(p2).to_affine();
  EXPECT_EQ(pairing(p12, q), pairing(p1, q) * pairing(p2, q)) << "e(P1 + P2, Q)";
  const G2Affine q2 = g2_mul(a);
  const G2Affine q12 = G2Jacobian::from_affine(q).add_mixed(q2).to_affine();
  EXPECT_EQ(pairing(p1, q12), pairing(p1, q) * pairing(p1, q2)) << "e(P, Q1 + Q2)";
  // Small known multiples: e(2P, 3Q) = e(P, Q)^6.
  const G1Affine two_g1 = g1().dbl().to_affine();
  const G2Affine three_g2 = scalar_mul(g2(), BigInt<1>{3}).to_affine();
  EXPECT_EQ(pairing(two_g1, three_g2), e.pow(BigInt<1>{6}));
}

TEST(Pairing, NegationGivesTheInverse) {
  auto rng = pt::test_rng();
  SCOPED_TRACE(pt::seed_note());
  const G1Affine p = g1_mul(Fr::random(rng));
  const G2Affine q = g2_mul(Fr::random(rng));
  const Fp12 e = pairing(p, q);
  EXPECT_TRUE((e * pairing(-p, q)).is_one()) << "e(P, Q)·e(-P, Q) != 1";
  EXPECT_TRUE((e * pairing(p, -q)).is_one()) << "e(P, Q)·e(P, -Q) != 1";
  EXPECT_EQ(pairing(-p, -q), e);
  EXPECT_EQ(pairing(-p, q), e.conjugate());
}

TEST(Pairing, PointsAtInfinityContributeOne) {
  auto rng = pt::test_rng();
  SCOPED_TRACE(pt::seed_note());
  const G1Affine p = g1_mul(Fr::random(rng));
  const G2Affine q = g2_mul(Fr::random(rng));
  EXPECT_TRUE(pairing(G1Affine::infinity(), q).is_one());
  EXPECT_TRUE(pairing(p, G2Affine::infinity()).is_one());
  EXPECT_TRUE(pairing(G1Affine::infinity(), G2Affine::infinity()).is_one());
  const std::vector<Pair> with_infinity = {
      {G1Affine::infinity(), q}, {p, q}, {p, G2Affine::infinity()}};
  EXPECT_EQ(final_exponentiation(multi_miller_loop(with_infinity)), pairing(p, q));
  const std::vector<Pair> only_infinity = {{G1Affine::infinity(), q}, {p, G2Affine::infinity()}};
  EXPECT_TRUE(multi_miller_loop(only_infinity).is_one());
  EXPECT_TRUE(pairing_product_is_one(only_infinity));
  EXPECT_TRUE(multi_miller_loop(std::span<const Pair>()).is_one());
  EXPECT_TRUE(pairing_product_is_one(std::span<const Pair>()));
}

TEST(Pairing, MultiMillerLoopIsTheProductOfPairings) {
  auto rng = pt::test_rng();
  SCOPED_TRACE(pt::seed_note());
  std::vector<Pair> pairs;
  Fp12 product = Fp12::one();
  for (int i = 0; i < 4; ++i) {
    pairs.emplace_back(g1_mul(Fr::random(rng)), g2_mul(Fr::random(rng)));
    product *= pairing(pairs.back().first, pairs.back().second);
  }
  EXPECT_EQ(final_exponentiation(multi_miller_loop(pairs)), product);
  // The same G2 point twice (shared accumulators must not interfere) and the generators.
  pairs.emplace_back(g1_generator(), pairs[0].second);
  pairs.emplace_back(g1_generator(), g2_generator());
  product *= pairing(g1_generator(), pairs[0].second) * e_generators();
  EXPECT_EQ(final_exponentiation(multi_miller_loop(pairs)), product);
  // A single pair is the pairing.
  EXPECT_EQ(final_exponentiation(multi_miller_loop(std::span<const Pair>(pairs.data(), 1))),
            pairing(pairs[0].first, pairs[0].second));
}

// e(aP, bQ)·e(-abP, Q) = 1, and the four-pair shape of a Groth16 verification
// e(A, B) = e(α, β)·e(L, γ)·e(C, δ), true for consistent values and false when perturbed.
TEST(Pairing, ProductCheckOfGroth16Shape) {
  auto rng = pt::test_rng();
  SCOPED_TRACE(pt::seed_note());
  const Fr a = Fr::random(rng), b = Fr::random(rng);
  const std::vector<Pair> ok = {{g1_mul(a), g2_mul(b)}, {g1_mul(-(a * b)), g2_generator()}};
  EXPECT_TRUE(pairing_product_is_one(ok));
  const std::vector<Pair> bad = {{g1_mul(a), g2_mul(b)},
                                 {g1_mul(-(a * b + Fr::one())), g2_generator()}};
  EXPECT_FALSE(pairing_product_is_one(bad));
  const std::vector<Pair> swapped = {{g1_mul(a), g2_mul(b)}, {g1_mul(a * b), g2_generator()}};
  EXPECT_FALSE(pairing_product_is_one(swapped)) << "e(aP, bQ)·e(abP, Q) = e^(2ab) != 1";

  // A·B = α·β + l·γ + c·δ in the exponent, with c solved for.
  const Fr alpha = Fr::random(rng), beta = Fr::random(rng), gamma = Fr::random(rng),
           delta = Fr::random(rng), l = Fr::random(rng);
  const Fr c = (a * b - alpha * beta - l * gamma) * delta.inverse();
  std::vector<Pair> groth16 = {{g1_mul(a), g2_mul(b)},
                               {-g1_mul(alpha), g2_mul(beta)},
                               {-g1_mul(l), g2_mul(gamma)},
                               {-g1_mul(c), g2_mul(delta)}};
  EXPECT_TRUE(pairing_product_is_one(groth16));
  groth16[3].first = -g1_mul(c + Fr::one());
  EXPECT_FALSE(pairing_product_is_one(groth16)) << "perturbed C accepted";
}

// The final exponentiation kills the proper subfields (this is what lets the Miller loop drop
// the Fp4 factor w^3 and the Fp2 denominators of its lines), and maps into the r-torsion.
TEST(FinalExponentiation, KillsSubfieldsAndLandsInTheRTorsion) {
  auto rng = pt::test_rng();
  SCOPED_TRACE(pt::seed_note());
  EXPECT_TRUE(final_exponentiation(Fp12::one()).is_one());
  const Fp12 fp_elem{{Fp2{Fp::random(rng), Fp::zero()}, Fp2::zero(), Fp2::zero()}, Fp6::zero()};
  EXPECT_TRUE(final_exponentiation(fp_elem).is_one()) << "Fp";
  const Fp12 fp2_elem{{Fp2::random(rng), Fp2::zero(), Fp2::zero()}, Fp6::zero()};
  EXPECT_TRUE(final_exponentiation(fp2_elem).is_one()) << "Fp2";
  const Fp12 fp4_elem{{Fp2::random(rng), Fp2::zero(), Fp2::zero()},
                      {Fp2::zero(), Fp2::random(rng), Fp2::zero()}};  // a + b·w^3
  EXPECT_TRUE(final_exponentiation(fp4_elem).is_one()) << "Fp4 = Fp2[w^3]";
  const Fp12 fp6_elem{Fp6::random(rng), Fp6::zero()};
  EXPECT_TRUE(final_exponentiation(fp6_elem).is_one()) << "Fp6";

  const Fp12 f = Fp12::random(rng), g = Fp12::random(rng);
  const Fp12 fe = final_exponentiation(f);
  EXPECT_TRUE(fe.pow(FrParams::kModulus).is_one()) << "FE(f)^r != 1";
  EXPECT_EQ(final_exponentiation(f * g), fe * final_exponentiation(g)) << "FE is multiplicative";
  EXPECT_EQ(final_exponentiation(f * fp4_elem), fe);
}

}  // namespace
