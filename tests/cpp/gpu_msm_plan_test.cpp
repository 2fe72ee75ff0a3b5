// The device prep_msm (gpu/msm_plan: the queries' variables resident, the classify and
// scatter kernels, CUB's scans) against groth16::prep_msm, downloaded and compared bit for bit
// — every query's ones bitmap, tail positions, canonical tail scalars, zeros and num_ones:
// random witnesses of 2^10 to 2^20 variables (0, 1, r − 1, the raw integer 1 and random values
// over several densities), the word edges, and the porep-like circuit with its key; the
// plan's VRAM charged to the budget, errors naming the stage. Skips without a GPU (the
// per-word logic's host simulation is gpu_msm_plan_simulation_test).
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <cstring>
#include <string>
#include <vector>

#include "core/circuits/circuit.hpp"
#include "core/groth16/prover.hpp"
#include "core/groth16/setup.hpp"
#include "core/parallel/thread_pool.hpp"
#include "gpu/backend/device_witness.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/memory/device_allocator.hpp"
#include "gpu/msm_plan/device_plan.hpp"
#include "gpu/msm_plan/device_query_variables.hpp"
#include "gpu_msm_plan_test_util.hpp"
#include "gpu_test_util.hpp"
#include "test_util.hpp"

namespace {

using namespace prooflab;
using gpu::memory::DeviceAllocator;
using gpu::msm_plan::DeviceQueryPlan;

template <class T>
std::vector<T> download(const gpu::memory::DeviceBuffer<T>& d) {
  std::vector<T> out(d.size());
  if (d.size()) gpu::check_cuda(cudaMemcpy(out.data(), d.get(), d.bytes(), cudaMemcpyDeviceToHost), "cudaMemcpy(test)");
  return out;
}

template <class Curve>
void expect_equal(const DeviceQueryPlan& got, const groth16::QueryPlan<Curve>& want, const char* query) {
  SCOPED_TRACE(query);
  EXPECT_EQ(got.num_ones, want.num_ones);
  EXPECT_EQ(got.zeros, want.zeros);
  EXPECT_EQ(got.num_tails, want.tail_index.size());
  EXPECT_EQ(download(got.ones), want.ones);
  EXPECT_EQ(download(got.tail_index), want.tail_index);
  const auto scalars = download(got.tail_scalars);
  ASSERT_EQ(scalars.size(), want.tail_scalars.size());
  for (std::size_t i = 0; i < scalars.size(); ++i)
    ASSERT_EQ(std::memcmp(&scalars[i], &want.tail_scalars[i], sizeof(scalars[i])), 0) << "tail " << i;
}

void expect_device_equals_host(const groth16::ProvingKey& pk, const r1cs::R1cs& cs, const r1cs::Witness& w) {
  const groth16::MsmPlan want = groth16::prep_msm(pk, cs, w);
  DeviceAllocator alloc;
  cudaStream_t stream = nullptr;
  gpu::check_cuda(cudaStreamCreate(&stream), "cudaStreamCreate");
  {
    const gpu::msm_plan::DeviceQueryVariables vars(alloc, pk, cs, stream, "prep_msm_variables");
    EXPECT_EQ(vars.bytes(), 4 * (pk.a.size() + pk.b_g1.size()));
    EXPECT_TRUE(vars.holds(cs));
    const auto wd = gpu::engine::upload_witness(alloc, w, stream, "witness");
    const std::uint64_t before = alloc.in_use();
    const gpu::msm_plan::QueryView views[4] = {vars.l(wd.get()), vars.a(wd.get()), vars.b(wd.get()),
                                               vars.b(wd.get())};
    DeviceQueryPlan plans[4];
    gpu::msm_plan::make_device_plans(alloc, views, 4, plans, stream, "prep_msm");
    gpu::check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    std::uint64_t plan_bytes = 0;
    for (const auto& p : plans) plan_bytes += p.bytes();
    EXPECT_EQ(alloc.in_use(), before + plan_bytes) << "the pass's scratch is freed, the plans stay";
    expect_equal(plans[0], want.l, "L");
    expect_equal(plans[1], want.a, "A");
    expect_equal(plans[2], want.b_g1, "B_G1");
    expect_equal(plans[3], want.b_g2, "B_G2");
  }
  cudaStreamDestroy(stream);
}

TEST(GpuMsmPlan, RandomWitnessesFrom2To10To2To20EqualPrepMsm) {
  PROOFLAB_REQUIRE_GPU();
  auto rng = test::test_rng();
  SCOPED_TRACE(test::seed_note());
  for (unsigned k = 10; k <= 20; k += 2)
    for (const auto& [a_density, b_density] : {std::pair{1.0, 1.0}, {0.5, 0.3}, {0.02, 0.0}}) {
      SCOPED_TRACE("2^" + std::to_string(k) + " aux, densities " + std::to_string(a_density) + "/" +
                   std::to_string(b_density));
      const auto c = test::msm_plan::random_plan_case(rng, 5, (std::size_t{1} << k) + 3, a_density, b_density,
                                                      /*distinct_points=*/false);
      expect_device_equals_host(c.pk, c.cs, c.w);
    }
}

TEST(GpuMsmPlan, WordEdgesEqualPrepMsm) {
  PROOFLAB_REQUIRE_GPU();
  auto rng = test::test_rng();
  SCOPED_TRACE(test::seed_note());
  for (const std::size_t aux : {0, 1, 31, 32, 33, 63, 64, 65}) {
    SCOPED_TRACE("aux " + std::to_string(aux));
    const auto c = test::msm_plan::random_plan_case(rng, 2, aux, 0.6, 0.6);
    expect_device_equals_host(c.pk, c.cs, c.w);
  }
}

TEST(GpuMsmPlan, PorepLikeEqualsPrepMsm) {
  PROOFLAB_REQUIRE_GPU();
  parallel::ThreadPool pool(0, "gpu-msm-plan-test");
  for (const std::uint64_t n : {1u << 10, 1u << 14}) {
    SCOPED_TRACE("porep-like " + std::to_string(n));
    const auto circuit = circuits::make_circuit("porep-like", n, 3);
    const r1cs::R1cs cs = circuits::synthesize_shape(*circuit);
    const auto pk = groth16::generate_parameters(cs, groth16::ToxicWaste::generate(n + 1), pool);
    expect_device_equals_host(pk, cs, circuits::synthesize_witness(*circuit));
  }
}

TEST(GpuMsmPlan, OverTheBudgetNamesTheStage) {
  PROOFLAB_REQUIRE_GPU();
  auto rng = test::test_rng();
  const auto c = test::msm_plan::random_plan_case(rng, 2, 4096, 0.5, 0.5, false);
  DeviceAllocator alloc(4 * (c.pk.a.size() + c.pk.b_g1.size()) + 32 * c.w.size() + 1024);
  cudaStream_t stream = nullptr;
  gpu::check_cuda(cudaStreamCreate(&stream), "cudaStreamCreate");
  {
    const gpu::msm_plan::DeviceQueryVariables vars(alloc, c.pk, c.cs, stream, "prep_msm_variables");
    const auto wd = gpu::engine::upload_witness(alloc, c.w, stream, "witness");
    const gpu::msm_plan::QueryView views[1] = {vars.l(wd.get())};
    DeviceQueryPlan plans[1];
    try {
      gpu::msm_plan::make_device_plans(alloc, views, 1, plans, stream, "prep_msm");
      FAIL() << "the plan fitted 1 KiB";
    } catch (const gpu::memory::DeviceOutOfMemory& e) {
      EXPECT_EQ(e.stage(), "prep_msm");
    }
    gpu::check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  }
  EXPECT_EQ(alloc.in_use(), 0u);
  cudaStreamDestroy(stream);
}

}  // namespace
