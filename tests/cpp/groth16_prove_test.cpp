// End to end on the CPU backend: setup, prove, verify for several circuits and sizes, and
// the rejections a verifier owes its users: every single-bit flip of the 192-byte proof,
// a changed public input, a proof checked against another circuit's key.
#include <gtest/gtest.h>

#include <random>

#include "core/circuits/circuit.hpp"
#include "core/curve/serialize.hpp"
#include "core/groth16/prover.hpp"
#include "core/groth16/qap.hpp"
#include "core/groth16/setup.hpp"
#include "core/groth16/verifier.hpp"

namespace {

using namespace prooflab;
using field::Fr;

#ifdef NDEBUG
constexpr std::size_t kFlipStride = 1;  // every bit of the proof
#else
constexpr std::size_t kFlipStride = 13;  // Debug/ASan: a spread sample of the bits
#endif

struct Setup {
  std::unique_ptr<circuits::Circuit> circuit;
  r1cs::R1cs cs;
  groth16::ProvingKey pk;
};

Setup make_setup(const char* name, std::uint64_t constraints, std::uint64_t seed,
                 parallel::ThreadPool& pool) {
  Setup s;
  s.circuit = circuits::make_circuit(name, constraints, seed);
  s.cs = circuits::synthesize_shape(*s.circuit);
  s.pk = groth16::generate_parameters(s.cs, groth16::ToxicWaste::generate(seed + 1), pool);
  return s;
}

std::vector<Fr> public_inputs(const circuits::Circuit& c) {
  const auto w = circuits::synthesize_witness(c);
  return {w.input.begin() + 1, w.input.end()};
}

struct Case {
  const char* circuit;
  std::uint64_t constraints;
};

class Groth16Prove : public ::testing::TestWithParam<Case> {};

TEST_P(Groth16Prove, ProofsVerifyForSeveralPartitions) {
  parallel::ThreadPool pool(2), g16(1);
  const auto s = make_setup(GetParam().circuit, GetParam().constraints, 5, pool);
  std::mt19937_64 rng(9);
  for (std::uint64_t partition = 0; partition < 2; ++partition) {
    const auto circuit = circuits::make_circuit(GetParam().circuit, GetParam().constraints, partition);
    groth16::StageTimes t;
    const auto proof = groth16::prove(s.pk, s.cs, circuits::synthesize_witness(*circuit), pool, g16, rng, &t);
    const auto inputs = public_inputs(*circuit);
    const auto result = groth16::verify(s.pk.vk, proof, inputs);
    EXPECT_TRUE(result) << result.reason;
    EXPECT_GT(t.total_s(), 0.0);
  }
}

INSTANTIATE_TEST_SUITE_P(Circuits, Groth16Prove,
                         ::testing::Values(Case{"tiny", 5}, Case{"porep-like", 1024},
                                           Case{"poseidon-merkle", 2048}),
                         [](const auto& info) {
                           std::string n = info.param.circuit;
                           for (auto& ch : n)
                             if (ch == '-') ch = '_';
                           return n + "_" + std::to_string(info.param.constraints);
                         });

TEST(Groth16Verify, RejectsBitFlipsWrongInputsAndForeignKeys) {
  parallel::ThreadPool pool(2), g16(1);
  const auto s = make_setup("tiny", 5, 0, pool);
  std::mt19937_64 rng(1);
  const auto proof = groth16::prove(s.pk, s.cs, circuits::synthesize_witness(*s.circuit), pool, g16, rng);
  const auto inputs = public_inputs(*s.circuit);
  ASSERT_TRUE(groth16::verify(s.pk.vk, proof, inputs));

  const auto bytes = groth16::serialize_proof(proof);
  std::size_t decode_rejects = 0, pairing_rejects = 0;
  for (std::size_t bit = 0; bit < bytes.size() * 8; bit += kFlipStride) {
    auto bad = bytes;
    bad[bit / 8] ^= static_cast<std::uint8_t>(1u << (bit % 8));
    try {
      const auto p = groth16::deserialize_proof(bad);
      EXPECT_FALSE(groth16::verify(s.pk.vk, p, inputs)) << "bit " << bit << " accepted";
      ++pairing_rejects;
    } catch (const curve::DecodeError&) {
      ++decode_rejects;
    }
  }
  EXPECT_GT(decode_rejects, 0u);
  EXPECT_GT(pairing_rejects, 0u);

  auto wrong = inputs;
  wrong[0] += Fr::one();
  const auto r = groth16::verify(s.pk.vk, proof, wrong);
  EXPECT_FALSE(r);
  EXPECT_NE(r.reason.find("pairing check failed"), std::string::npos);
  const auto count = groth16::verify(s.pk.vk, proof, {});
  EXPECT_FALSE(count);
  EXPECT_NE(count.reason.find("public inputs"), std::string::npos) << count.reason;

  // Same circuit, another ceremony: the proof must not verify under the other key.
  const auto other = groth16::generate_parameters(s.cs, groth16::ToxicWaste::generate(77), pool);
  EXPECT_FALSE(groth16::verify(other.vk, proof, inputs));
}

// h_basis = coset (core/groth16/h_basis.hpp): the same toxic waste with the H query in the
// coset's Lagrange basis gives the same verifying key, and the prover's six-transform H gives
// proofs that verify under it, for every circuit shape the suite proves. Mislabelled, the key's
// points are used as monomials and the proof fails.
TEST_P(Groth16Prove, ProofsWithACosetLagrangeHQueryVerify) {
  parallel::ThreadPool pool(2), g16(1);
  const auto circuit = circuits::make_circuit(GetParam().circuit, GetParam().constraints, 3);
  const auto cs = circuits::synthesize_shape(*circuit);
  const auto tw = groth16::ToxicWaste::generate(21);
  const auto mono = groth16::generate_parameters(cs, tw, pool);
  const auto coset = groth16::generate_parameters(cs, tw, pool, nullptr, groth16::HBasis::kCosetLagrange);
  EXPECT_EQ(coset.h_basis, groth16::HBasis::kCosetLagrange);
  EXPECT_EQ(coset.h.size(), mono.h.size() + 1);
  EXPECT_TRUE(coset.vk == mono.vk);
  EXPECT_TRUE(coset.l == mono.l && coset.a == mono.a && coset.b_g2 == mono.b_g2);
  EXPECT_NO_THROW(groth16::check_key_fits(coset, cs));
  std::mt19937_64 rng(4);
  const auto inputs = public_inputs(*circuit);
  const auto proof = groth16::prove(coset, cs, circuits::synthesize_witness(*circuit), pool, g16, rng);
  const auto result = groth16::verify(coset.vk, proof, inputs);
  EXPECT_TRUE(result) << result.reason;

  auto mislabelled = coset;
  mislabelled.h_basis = groth16::HBasis::kMonomial;
  mislabelled.h.pop_back();
  const auto bad = groth16::prove(mislabelled, cs, circuits::synthesize_witness(*circuit), pool, g16, rng);
  EXPECT_FALSE(groth16::verify(coset.vk, bad, inputs));
  auto short_h = coset;
  short_h.h.pop_back();  // m - 1 points labelled coset: refused, naming H
  EXPECT_THROW(groth16::check_key_fits(short_h, cs), std::invalid_argument);
}

// h_basis = coset_fold_c: C's share folded into L and h_inputs. The prover synthesizes no C·w
// (its partition's c is empty) and its proofs verify under the same verifying key; the coset
// points are the coset key's, L differs only by the folded share. A partition with C·w, or a key
// without h_inputs, is refused.
TEST_P(Groth16Prove, ProofsWithCFoldedIntoTheKeyVerify) {
  parallel::ThreadPool pool(2), g16(1);
  const auto circuit = circuits::make_circuit(GetParam().circuit, GetParam().constraints, 3);
  const auto cs = circuits::synthesize_shape(*circuit);
  const auto tw = groth16::ToxicWaste::generate(21);
  const auto coset = groth16::generate_parameters(cs, tw, pool, nullptr, groth16::HBasis::kCosetLagrange);
  const auto folded = groth16::generate_parameters(cs, tw, pool, nullptr, groth16::HBasis::kCosetFoldedC);
  EXPECT_TRUE(folded.vk == coset.vk);
  EXPECT_TRUE(folded.h == coset.h && folded.a == coset.a && folded.b_g1 == coset.b_g1);
  EXPECT_EQ(folded.h_inputs.size(), cs.num_inputs);
  EXPECT_TRUE(coset.h_inputs.empty());
  EXPECT_FALSE(folded.l == coset.l);
  EXPECT_NO_THROW(groth16::check_key_fits(folded, cs));
  std::mt19937_64 rng(6);
  const auto inputs = public_inputs(*circuit);
  groth16::StageTimes t;
  const auto proof = groth16::prove(folded, cs, circuits::synthesize_witness(*circuit), pool, g16, rng, &t);
  const auto result = groth16::verify(folded.vk, proof, inputs);
  EXPECT_TRUE(result) << result.reason;

  const auto part = groth16::synthesize(cs, circuits::synthesize_witness(*circuit), pool, nullptr, false);
  EXPECT_TRUE(part.c.empty());
  EXPECT_EQ(part.a.size(), groth16::qap_domain_size(cs));
  auto with_c = groth16::synthesize(cs, circuits::synthesize_witness(*circuit), pool);
  const auto plan = groth16::prep_msm(folded, cs, with_c.witness);
  EXPECT_THROW(groth16::gpu_phase(folded, with_c, plan, pool), std::invalid_argument);
  auto no_inputs = folded;
  no_inputs.h_inputs.clear();
  EXPECT_THROW(groth16::check_key_fits(no_inputs, cs), std::invalid_argument);
}

TEST(Groth16Prove, KeyForAnotherCircuitIsRefused) {
  parallel::ThreadPool pool(2), g16(1);
  const auto s = make_setup("tiny", 5, 0, pool);
  const auto big = circuits::make_circuit("porep-like", 1024, 0);
  const auto big_cs = circuits::synthesize_shape(*big);
  std::mt19937_64 rng(1);
  EXPECT_THROW(groth16::prove(s.pk, big_cs, circuits::synthesize_witness(*s.circuit), pool, g16, rng), std::exception);
  EXPECT_NE(groth16::circuit_shape(s.cs), groth16::circuit_shape(big_cs));
}

TEST(Groth16Prove, AKeyWithQueriesThatDoNotFitTheCircuitIsRefused) {
  parallel::ThreadPool pool(2);
  const auto s = make_setup("porep-like", 1024, 0, pool);
  EXPECT_NO_THROW(groth16::check_key_fits(s.pk, s.cs));
  const std::size_t dense_a = s.cs.num_inputs + s.cs.a_aux_density.count();
  ASSERT_EQ(s.pk.a.size(), dense_a);
  auto short_a = s.pk;
  short_a.a.pop_back();
  try {
    groth16::check_key_fits(short_a, s.cs);
    FAIL() << "a key one A point short was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "section A holds " + std::to_string(dense_a - 1) +
                                         " points, the circuit needs " + std::to_string(dense_a));
  }
  auto long_b = s.pk;
  long_b.b_g2.push_back(long_b.b_g2.back());
  EXPECT_THROW(groth16::check_key_fits(long_b, s.cs), std::invalid_argument);
}

}  // namespace
