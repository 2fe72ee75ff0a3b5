// REFERENCE.md's toy-field Groth16 known-answer test (bellman/bellperson's "dummy engine"
// test_xordemo), run through our own code: the XOR circuit recorded with our r1cs API, its
// QAP evaluated at τ by groth16::evaluate_qap_at, the SRS scalars by groth16::query_scalars,
// the witness rows by r1cs::evaluate_all and the quotient by groth16::compute_h, all over the
// field r = 64513 (tests/cpp/toy_field.hpp) on poly::BasicEvaluationDomain and poly's NTTs.
//
// In the toy "groups" G1 = G2 = F with generator 1 and the pairing is multiplication
// (written additively in the target group), so every SRS element is its own discrete log
// and the whole proof is three small integers.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

#include "core/groth16/compute_h.hpp"
#include "core/groth16/qap.hpp"
#include "core/poly/domain.hpp"
#include "core/poly/ntt.hpp"
#include "core/r1cs/constraint_system.hpp"
#include "core/r1cs/evaluate.hpp"
#include "core/r1cs/r1cs.hpp"
#include "toy_field.hpp"

namespace {

using namespace prooflab;
using field::Fr;
using test::kToyModulus;
using test::ToyField;
using ToyDomain = poly::BasicEvaluationDomain<ToyField>;

// REFERENCE.md, Groth16, "Toy-field check of the algebra".
constexpr std::uint64_t kAlpha = 48577, kBeta = 22580, kGamma = 53332, kDelta = 5481, kTau = 3673,
                        kR = 27134, kS = 17146;
constexpr std::array<std::uint64_t, 4> kU = {59158, 48317, 21767, 10402};
constexpr std::array<std::uint64_t, 4> kV = {0, 0, 60619, 30791};
constexpr std::array<std::uint64_t, 4> kW = {0, 23320, 41193, 41193};
constexpr std::array<std::uint64_t, 7> kH = {5040, 11763, 10755, 63633, 128, 9747, 8739};
// bellman's test_xordemo asserts this 8th root of unity, (5^63)^(2^7).
constexpr std::uint64_t kOmega8 = 20201;

ToyField toy(std::uint64_t v) { return ToyField::from_u64(v % kToyModulus); }
std::uint64_t value(const ToyField& x) { return x.to_canonical()[0]; }
std::vector<std::uint64_t> values(const std::vector<ToyField>& xs) {
  std::vector<std::uint64_t> out;
  for (const auto& x : xs) out.push_back(value(x));
  return out;
}

// Our R1cs keeps coefficients and witness values in Fr. The XOR circuit is a circuit over
// the integers (coefficients ±1 and 2, values 0 and 1): a small signed integer in Fr is
// mapped to the same integer in the toy field. Anything else has no meaning there.
ToyField toy_from_small_fr(const Fr& x) {
  constexpr std::uint64_t kSmall = 1u << 20;
  const auto v = x.to_canonical();
  if (v[1] == 0 && v[2] == 0 && v[3] == 0 && v[0] < kSmall) return toy(v[0]);
  const auto n = (-x).to_canonical();
  if (n[1] == 0 && n[2] == 0 && n[3] == 0 && n[0] < kSmall) return -toy(n[0]);
  throw std::invalid_argument("toy_from_small_fr: not a small integer");
}
std::vector<ToyField> toy_from_small_fr(const std::vector<Fr>& xs) {
  std::vector<ToyField> out;
  for (const auto& x : xs) out.push_back(toy_from_small_fr(x));
  return out;
}

struct XorDemo {
  r1cs::R1cs cs;
  r1cs::Witness witness;
  std::vector<ToyField> coeffs_a, coeffs_b, coeffs_c;  // the matrices' tables in the toy field
  groth16::CoefficientTables<ToyField> tables() const { return {coeffs_a, coeffs_b, coeffs_c}; }
};

// bellman's XORDemo with a = true, b = false, in its order: alloc a, (1 − a)·a = 0; alloc b,
// (1 − b)·b = 0; alloc_input c = a XOR b, (2a)·b = a + b − c. Variables [ONE, c, a, b]; the
// QAP appends the input rows ONE·0 = 0, c·0 = 0 after the three constraints.
XorDemo make_xor_demo(bool a_value = true, bool b_value = false) {
  using r1cs::LinearCombination;
  r1cs::ConstraintSystem cs(r1cs::Mode::kBoth);
  const auto one = r1cs::ConstraintSystem::one();
  const auto a = cs.alloc_aux_bit(a_value);
  cs.enforce(LinearCombination(one) - a, a, LinearCombination::zero(), "a_boolean_constraint");
  const auto b = cs.alloc_aux_bit(b_value);
  cs.enforce(LinearCombination(one) - b, b, LinearCombination::zero(), "b_boolean_constraint");
  const auto c = cs.alloc_input(a_value != b_value ? Fr::one() : Fr::zero());
  cs.enforce(LinearCombination(a) + a, b, LinearCombination(a) + b - c, "c_xor_constraint");
  XorDemo demo;
  demo.witness = cs.witness();
  demo.cs = r1cs::compile(cs);
  demo.coeffs_a = toy_from_small_fr(demo.cs.a.coeffs);
  demo.coeffs_b = toy_from_small_fr(demo.cs.b.coeffs);
  demo.coeffs_c = toy_from_small_fr(demo.cs.c.coeffs);
  return demo;
}

ToyDomain kat_domain(const r1cs::R1cs& cs) { return ToyDomain(groth16::qap_log_domain_size(cs)); }

groth16::BasicQapAtTau<ToyField> kat_qap(const XorDemo& demo, parallel::ThreadPool& pool) {
  return groth16::evaluate_qap_at(demo.cs, kat_domain(demo.cs), toy(kTau), pool, demo.tables());
}

// The setup's discrete logs (IC, L, H, A, B) for REFERENCE.md's toxic waste.
groth16::QueryScalars<ToyField> kat_srs(const XorDemo& demo, parallel::ThreadPool& pool) {
  return groth16::query_scalars(demo.cs, kat_qap(demo, pool), groth16::qap_domain_size(demo.cs),
                                toy(kAlpha), toy(kBeta), toy(kGamma), toy(kDelta), toy(kTau));
}

// The prover's input to compute_h: A·w, B·w, C·w over the QAP rows, zero-padded.
std::vector<std::uint64_t> kat_h(const XorDemo& demo, parallel::ThreadPool& pool) {
  const auto e =
      r1cs::evaluate_all(demo.cs, demo.witness, pool, nullptr, groth16::qap_domain_size(demo.cs));
  auto a = toy_from_small_fr(e.a), b = toy_from_small_fr(e.b), c = toy_from_small_fr(e.c);
  std::vector<std::uint64_t> h;
  for (const auto& limbs : groth16::compute_h(a, b, c, pool)) h.push_back(limbs[0]);
  return h;
}

TEST(ToyField, IsTheReferenceField) {
  // r is prime, r − 1 = 2^10 · 63, and 5 generates F* (5^((r−1)/q) ≠ 1 for q = 2, 3, 7).
  for (std::uint64_t d = 2; d * d <= kToyModulus; ++d) ASSERT_NE(kToyModulus % d, 0u) << d;
  EXPECT_EQ(kToyModulus - 1, (std::uint64_t{1} << test::kToyTwoAdicity) * 63);
  for (std::uint64_t q : {2, 3, 7})
    EXPECT_FALSE(toy(test::kToyGenerator).pow((kToyModulus - 1) / q).is_one()) << q;
  // The 2^10-th root has exact order 2^10; the size-8 domain's ω is bellman's 20201.
  const ToyField w = poly::FieldRoots<ToyField>::max_root_of_unity();
  EXPECT_EQ(value(w.pow(std::uint64_t{1} << 9)), kToyModulus - 1);
  const ToyDomain d8(3);
  EXPECT_EQ(value(d8.omega()), kOmega8);
  EXPECT_EQ(value(d8.omega() * d8.omega_inv()), 1u);
  EXPECT_EQ(value(d8.size_inv() * toy(8)), 1u);
  EXPECT_THROW(ToyDomain(11), std::invalid_argument);
  EXPECT_THROW(ToyDomain::at_least(2049), std::invalid_argument);
}

TEST(ToyField, OneLimbMontgomeryArithmeticIsModularArithmetic) {
  std::mt19937_64 rng(1);
  for (int i = 0; i < 20000; ++i) {
    const std::uint64_t x = rng() % kToyModulus, y = rng() % kToyModulus;
    ASSERT_EQ(value(toy(x) * toy(y)), x * y % kToyModulus) << x << " " << y;
    ASSERT_EQ(value(toy(x) + toy(y)), (x + y) % kToyModulus) << x << " " << y;
    ASSERT_EQ(value(toy(x) - toy(y)), (x + kToyModulus - y) % kToyModulus) << x << " " << y;
    if (x != 0) ASSERT_EQ(value(toy(x) * toy(x).inverse()), 1u) << x;
  }
}

TEST(ToyField, NttMatchesNaiveEvaluationOnTheDomainAndItsCoset) {
  // The toy field through the same transforms the prover runs, at every size it allows.
  parallel::ThreadPool pool(2);
  std::mt19937_64 rng(2);
  for (unsigned log_n = 0; log_n <= test::kToyTwoAdicity; ++log_n) {
    const ToyDomain d(log_n);
    std::vector<ToyField> coeffs(d.size());
    for (auto& x : coeffs) x = ToyField::random(rng);
    for (bool coset : {false, true}) {
      auto evals = coeffs;
      if (coset)
        poly::coset_ntt<ToyField>(evals, d, pool);
      else
        poly::ntt<ToyField>(evals, d, pool);
      const ToyField shift = coset ? ToyDomain::coset_shift() : ToyField::one();
      for (std::size_t i = 0; i < d.size(); ++i) {
        const ToyField x = shift * d.omega().pow(std::uint64_t{i});
        ToyField y = ToyField::zero();  // Horner
        for (std::size_t k = d.size(); k-- > 0;) y = y * x + coeffs[k];
        ASSERT_EQ(evals[i], y) << "log n " << log_n << " coset " << coset << " point " << i;
      }
      if (coset)
        poly::coset_intt<ToyField>(evals, d, pool);
      else
        poly::intt<ToyField>(evals, d, pool);
      ASSERT_EQ(evals, coeffs) << "log n " << log_n << " coset " << coset;
    }
  }
}

TEST(Groth16ToyKat, CircuitHasBellmansShape) {
  const XorDemo demo = make_xor_demo();
  EXPECT_EQ(demo.cs.num_constraints, 3u);
  EXPECT_EQ(demo.cs.num_inputs, 2u);  // ONE, c
  EXPECT_EQ(demo.cs.num_aux, 2u);     // a, b
  EXPECT_EQ(groth16::qap_rows(demo.cs), 5u);
  EXPECT_EQ(groth16::qap_domain_size(demo.cs), 8u);
  // The witness a = 1, b = 0, c = 1 satisfies it.
  EXPECT_EQ(demo.witness.input, (std::vector<Fr>{Fr::one(), Fr::one()}));
  EXPECT_EQ(demo.witness.aux, (std::vector<Fr>{Fr::one(), Fr::zero()}));
}

TEST(Groth16ToyKat, QapAtTauIsTheReferenceUVW) {
  for (unsigned threads : {1u, 2u}) {
    parallel::ThreadPool pool(threads);
    const XorDemo demo = make_xor_demo();
    const auto qap = kat_qap(demo, pool);
    EXPECT_EQ(values(qap.a), std::vector<std::uint64_t>(kU.begin(), kU.end())) << threads;
    EXPECT_EQ(values(qap.b), std::vector<std::uint64_t>(kV.begin(), kV.end())) << threads;
    EXPECT_EQ(values(qap.c), std::vector<std::uint64_t>(kW.begin(), kW.end())) << threads;
    // Z(τ) = τ^8 − 1 = Π (τ − ω^i).
    ToyField z = ToyField::one();
    for (std::uint64_t i = 0; i < 8; ++i) z *= toy(kTau) - toy(kOmega8).pow(i);
    EXPECT_EQ(qap.z_at_tau, toy(kTau).pow(std::uint64_t{8}) - ToyField::one());
    EXPECT_EQ(qap.z_at_tau, z);
  }
  // Five QAP rows need a domain of 8; τ must lie off the domain.
  parallel::ThreadPool pool(1);
  const XorDemo demo = make_xor_demo();
  EXPECT_THROW(groth16::evaluate_qap_at(demo.cs, ToyDomain(2), toy(kTau), pool, demo.tables()),
               std::invalid_argument);
  EXPECT_THROW(groth16::evaluate_qap_at(demo.cs, ToyDomain(3), toy(kOmega8), pool, demo.tables()),
               std::invalid_argument);
}

TEST(Groth16ToyKat, ComputeHIsTheReferenceQuotient) {
  for (unsigned threads : {1u, 2u}) {
    parallel::ThreadPool pool(threads);
    EXPECT_EQ(kat_h(make_xor_demo(), pool), std::vector<std::uint64_t>(kH.begin(), kH.end()))
        << threads << " threads";
  }
}

// The coset-Lagrange H query (core/groth16/h_basis.hpp): the sum of compute_h_on_coset's values
// times coset_lagrange_h_scalars is REFERENCE.md's Σ h_i·τ^i·Z(τ)/δ (computed here from kH), and
// each ℓ_j is L_j(τ)·Z(τ)/(δ·Z(g)) with L_j(τ) from its product form Π_{k≠j} (τ − x_k)/(x_j − x_k).
TEST(Groth16ToyKat, CosetLagrangeHGivesTheReferenceSum) {
  parallel::ThreadPool pool(1);
  const XorDemo demo = make_xor_demo();
  const ToyDomain d = kat_domain(demo.cs);
  const auto rows = r1cs::evaluate_all(demo.cs, demo.witness, pool, nullptr, d.size());
  auto a = toy_from_small_fr(rows.a), b = toy_from_small_fr(rows.b), c = toy_from_small_fr(rows.c);
  const auto values = groth16::compute_h_on_coset(a, b, c, pool);
  const auto ell = groth16::coset_lagrange_h_scalars(d, toy(kTau), toy(kDelta), pool);
  ASSERT_EQ(values.size(), 8u);
  ASSERT_EQ(ell.size(), 8u);
  const ToyField z_tau = toy(kTau).pow(std::uint64_t{8}) - ToyField::one();
  ToyField expect = ToyField::zero(), got = ToyField::zero();
  for (std::uint64_t i = 0; i < kH.size(); ++i) expect += toy(kH[i]) * toy(kTau).pow(i);
  expect *= z_tau * toy(kDelta).inverse();
  for (std::size_t j = 0; j < 8; ++j) got += toy(values[j][0]) * ell[j];
  EXPECT_EQ(value(got), value(expect));

  const ToyField g = ToyDomain::coset_shift();
  const ToyField z_g = g.pow(std::uint64_t{8}) - ToyField::one();
  std::vector<ToyField> x(8);
  for (std::uint64_t j = 0; j < 8; ++j) x[j] = g * toy(kOmega8).pow(j);
  for (std::size_t j = 0; j < 8; ++j) {
    ToyField l = ToyField::one();
    for (std::size_t k = 0; k < 8; ++k)
      if (k != j) l *= (toy(kTau) - x[k]) * (x[j] - x[k]).inverse();
    EXPECT_EQ(value(ell[j]), value(l * z_tau * (toy(kDelta) * z_g).inverse())) << j;
  }
  // τ on the coset has no such basis.
  EXPECT_THROW(groth16::coset_lagrange_h_scalars(d, x[3], toy(kDelta), pool), std::invalid_argument);
}

TEST(Groth16ToyKat, QueryScalarsAreTheReferenceSrs) {
  parallel::ThreadPool pool(1);
  const XorDemo demo = make_xor_demo();
  const auto q = kat_srs(demo, pool);
  const ToyField gamma_inv = toy(kGamma).inverse(), delta_inv = toy(kDelta).inverse();
  // H: the m − 1 = 7 points τ^i·Z(τ)/δ.
  ASSERT_EQ(q.h.size(), 7u);
  const ToyField z_tau = toy(kTau).pow(std::uint64_t{8}) - ToyField::one();
  for (std::uint64_t i = 0; i < 7; ++i)
    EXPECT_EQ(q.h[i], toy(kTau).pow(i) * z_tau * delta_inv) << i;
  // IC over the 2 inputs, L over the 2 aux variables: (β·u + α·v + w)/γ and /δ.
  ASSERT_EQ(q.ic.size(), 2u);
  ASSERT_EQ(q.l.size(), 2u);
  for (std::size_t k = 0; k < 4; ++k) {
    const ToyField num = toy(kBeta) * toy(kU[k]) + toy(kAlpha) * toy(kV[k]) + toy(kW[k]);
    EXPECT_EQ(k < 2 ? q.ic[k] : q.l[k - 2], num * (k < 2 ? gamma_inv : delta_inv)) << k;
  }
  // A: every variable is in some A row; B: only a and b are (bellman's densities 4 and 2).
  EXPECT_EQ(values(q.a), std::vector<std::uint64_t>(kU.begin(), kU.end()));
  EXPECT_EQ(values(q.b), (std::vector<std::uint64_t>{kV[2], kV[3]}));
}

// The proof in the toy groups from our SRS scalars and our h, with REFERENCE.md's r and s:
// A = α + Σ z_k·A_k + r·δ, B = β + Σ z_k·B_k + s·δ, C = s·A + r·B − r·s·δ + Σ h_i·H_i + Σ
// aux_k·L_k.
struct ToyProof {
  ToyField a, b, c;
};

ToyProof toy_prove(const groth16::QueryScalars<ToyField>& q, const std::vector<std::uint64_t>& h,
                   const std::array<std::uint64_t, 4>& z) {
  const ToyField r = toy(kR), s = toy(kS), delta = toy(kDelta);
  ToyProof p{toy(kAlpha) + r * delta, toy(kBeta) + s * delta, ToyField::zero()};
  for (std::size_t k = 0; k < 4; ++k) p.a += toy(z[k]) * q.a[k];
  for (std::size_t k = 0; k < 2; ++k) p.b += toy(z[2 + k]) * q.b[k];  // B-dense: a, b
  p.c = s * p.a + r * p.b - r * s * delta;
  for (std::size_t i = 0; i < h.size(); ++i) p.c += toy(h[i]) * q.h[i];
  for (std::size_t k = 0; k < 2; ++k) p.c += toy(z[2 + k]) * q.l[k];
  return p;
}

// e(A, B) = e(α, β) · e(IC_0 + c·IC_1, γ) · e(C, δ), the pairing being multiplication.
bool toy_verify(const groth16::QueryScalars<ToyField>& q, const ToyProof& p, std::uint64_t c) {
  const ToyField ic = q.ic[0] + toy(c) * q.ic[1];
  return p.a * p.b == toy(kAlpha) * toy(kBeta) + ic * toy(kGamma) + p.c * toy(kDelta);
}

TEST(Groth16ToyKat, ToyProofFromOurSrsAndHVerifies) {
  parallel::ThreadPool pool(1);
  const XorDemo demo = make_xor_demo();
  const auto q = kat_srs(demo, pool);
  const auto h = kat_h(demo, pool);
  const std::array<std::uint64_t, 4> z = {1, 1, 1, 0};  // ONE, c, a, b
  const ToyProof p = toy_prove(q, h, z);
  EXPECT_TRUE(toy_verify(q, p, /*c=*/1));
  // Not in REFERENCE.md: the same proof recomputed from its numbers alone (Python, the
  // formulas above) — A = 3269, B = 471, C = 8383 — a fixed point for the toy epilogue.
  EXPECT_EQ(value(p.a), 3269u);
  EXPECT_EQ(value(p.b), 471u);
  EXPECT_EQ(value(p.c), 8383u);
  // The check can fail: a wrong public input, or any one coefficient of h off by one.
  EXPECT_FALSE(toy_verify(q, p, /*c=*/0));
  for (std::size_t i = 0; i < h.size(); ++i) {
    auto bad = h;
    bad[i] = (bad[i] + 1) % kToyModulus;
    EXPECT_FALSE(toy_verify(q, toy_prove(q, bad, z), 1)) << "h[" << i << "] + 1";
  }
}

TEST(Groth16ToyKat, EveryXorWitnessProves) {
  // The other three assignments of (a, b) through the same pipeline: h changes, the toy proof
  // still verifies against the public c = a XOR b (and not against its complement).
  parallel::ThreadPool pool(1);
  for (bool a : {false, true})
    for (bool b : {false, true}) {
      const XorDemo demo = make_xor_demo(a, b);
      const auto q = kat_srs(demo, pool);
      const std::uint64_t c = a != b;
      const ToyProof p = toy_prove(q, kat_h(demo, pool), {1, c, a, b});
      EXPECT_TRUE(toy_verify(q, p, c)) << a << b;
      EXPECT_FALSE(toy_verify(q, p, 1 - c)) << a << b;
    }
}

}  // namespace
