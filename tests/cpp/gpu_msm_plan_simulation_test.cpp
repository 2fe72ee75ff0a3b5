// The device prep_msm's per-word logic (gpu/msm_plan/query_words.cuh) run on the host, word
// by word with the emulated carry chain, with the host's scan in place of CUB's, against
// groth16::prep_msm: random witnesses of zeros, ones, r − 1, the raw integer 1 and random
// values over dense, sparse, full and empty densities, at the word edges (0, 1, 31, 32, 33,
// 63, 64, 65 variables) and beyond; and the porep-like circuit with its real key. Every query's
// bitmap, tail positions, canonical tail scalars and counts must equal the CPU's bit for bit.
// No GPU needed; the kernels on the device are gpu_msm_plan_test.cpp's.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "core/circuits/circuit.hpp"
#include "core/groth16/prover.hpp"
#include "core/groth16/setup.hpp"
#include "core/parallel/thread_pool.hpp"
#include "gpu/msm_plan/query_words.cuh"
#include "gpu_msm_plan_test_util.hpp"
#include "test_util.hpp"

namespace {

using namespace prooflab;
using gpu::field::Fr32;
using gpu::msm_plan::QueryView;

std::vector<Fr32> combined(const r1cs::Witness& w) {
  std::vector<Fr32> out(w.size());
  std::memcpy(out.data(), w.input.data(), w.input.size() * sizeof(Fr32));
  std::memcpy(out.data() + w.input.size(), w.aux.data(), w.aux.size() * sizeof(Fr32));
  return out;
}

struct SimulatedPlan {
  std::vector<std::uint64_t> ones;
  std::vector<std::uint32_t> tail_index;
  std::vector<Fr32> tail_scalars;
  std::size_t zeros = 0, num_ones = 0;
};

// The two passes as the kernels' threads run them, one call per word (one past the end too:
// no write), and the scans between them on the host.
SimulatedPlan simulate(const QueryView& q) {
  const std::size_t words = q.words();
  SimulatedPlan out;
  out.ones.assign(words / 2, ~std::uint64_t{0});  // every word must be written, padding included
  std::vector<std::uint32_t> tails(words + 1, 0xdeadbeef), ones_count(words + 1), tail_count(words + 1),
      tail_end(words + 1);
  gpu::msm_plan::ClassifyArgs c;
  c.query = q;
  std::vector<std::uint32_t> ones32(words + 1, 0xdeadbeef);
  c.ones = ones32.data();
  c.tails = tails.data();
  c.ones_count = ones_count.data();
  c.tail_count = tail_count.data();
  for (std::size_t w = 0; w <= words; ++w) gpu::msm_plan::classify_word(c, w);
  EXPECT_EQ(ones32[words], 0xdeadbeefu) << "a thread past the last word wrote";
  std::memcpy(out.ones.data(), ones32.data(), words * sizeof(std::uint32_t));
  std::uint32_t sum = 0;
  for (std::size_t w = 0; w < words; ++w) {
    tail_end[w] = sum += tail_count[w];
    out.num_ones += ones_count[w];
  }
  out.tail_index.assign(sum, 0);
  out.tail_scalars.assign(sum, Fr32::zero());
  gpu::msm_plan::ScatterArgs s;
  s.query = q;
  s.tails = tails.data();
  s.tail_end = tail_end.data();
  s.tail_index = out.tail_index.data();
  s.tail_scalars = out.tail_scalars.data();
  for (std::size_t w = 0; w <= words; ++w) gpu::msm_plan::scatter_word_tails(s, w);
  out.zeros = q.size - out.num_ones - sum;
  return out;
}

template <class Curve>
void expect_equal(const SimulatedPlan& got, const groth16::QueryPlan<Curve>& want, const char* query) {
  SCOPED_TRACE(query);
  EXPECT_EQ(got.ones, want.ones);
  EXPECT_EQ(got.num_ones, want.num_ones);
  EXPECT_EQ(got.zeros, want.zeros);
  EXPECT_EQ(got.tail_index, want.tail_index);
  ASSERT_EQ(got.tail_scalars.size(), want.tail_scalars.size());
  for (std::size_t i = 0; i < got.tail_scalars.size(); ++i)
    ASSERT_EQ(std::memcmp(&got.tail_scalars[i], &want.tail_scalars[i], sizeof(Fr32)), 0) << "tail " << i;
}

void expect_plans_equal(const groth16::ProvingKey& pk, const r1cs::R1cs& cs, const r1cs::Witness& w) {
  const groth16::MsmPlan want = groth16::prep_msm(pk, cs, w);
  const groth16::QueryVariables vars = groth16::query_variables(pk, cs);
  const std::vector<Fr32> wd = combined(w);
  QueryView l{wd.data(), nullptr, static_cast<std::uint32_t>(cs.num_inputs), cs.num_aux};
  QueryView a{wd.data(), vars.a.data(), 0, vars.a.size()};
  QueryView b{wd.data(), vars.b.data(), 0, vars.b.size()};
  expect_equal(simulate(l), want.l, "L");
  expect_equal(simulate(a), want.a, "A");
  expect_equal(simulate(b), want.b_g1, "B_G1");
  expect_equal(simulate(b), want.b_g2, "B_G2");
}

TEST(GpuMsmPlanSimulation, RandomWitnessesAtTheWordEdgesEqualPrepMsm) {
  auto rng = test::test_rng();
  SCOPED_TRACE(test::seed_note());
  for (const std::size_t aux : {0, 1, 31, 32, 33, 63, 64, 65, 127, 129, 1000})
    for (const auto& [a_density, b_density] : {std::pair{1.0, 1.0}, {0.5, 0.3}, {0.0, 0.0}, {0.05, 0.9}})
      for (const std::size_t inputs : {1, 3}) {
        SCOPED_TRACE("aux " + std::to_string(aux) + " inputs " + std::to_string(inputs) + " densities " +
                     std::to_string(a_density) + "/" + std::to_string(b_density));
        const auto c = test::msm_plan::random_plan_case(rng, inputs, aux, a_density, b_density);
        expect_plans_equal(c.pk, c.cs, c.w);
      }
}

// All zeros, all ones, all tails: the compaction's extremes (no tail; every position a tail).
TEST(GpuMsmPlanSimulation, UniformWitnessesEqualPrepMsm) {
  auto rng = test::test_rng();
  SCOPED_TRACE(test::seed_note());
  for (int kind = 0; kind < 3; ++kind) {
    auto c = test::msm_plan::random_plan_case(rng, 2, 200, 0.7, 0.7);
    for (auto* v : {&c.w.input, &c.w.aux})
      for (std::size_t i = (v == &c.w.input ? 1 : 0); i < v->size(); ++i)
        (*v)[i] = kind == 0 ? field::Fr::zero() : kind == 1 ? field::Fr::one() : field::Fr::random(rng);
    SCOPED_TRACE("kind " + std::to_string(kind));
    expect_plans_equal(c.pk, c.cs, c.w);
  }
}

TEST(GpuMsmPlanSimulation, PorepLikeEqualsPrepMsm) {
  const auto circuit = circuits::make_circuit("porep-like", 1 << 10, 3);
  const r1cs::R1cs cs = circuits::synthesize_shape(*circuit);
  const r1cs::Witness w = circuits::synthesize_witness(*circuit);
  parallel::ThreadPool pool(2);
  const groth16::ProvingKey pk = groth16::generate_parameters(cs, groth16::ToxicWaste::generate(11), pool);
  expect_plans_equal(pk, cs, w);
}

}  // namespace
