// The device G2 MSM and batch addition (g2_msm.hpp) against core/msm's G2 MSM, point for
// point: random inputs at 2^10 … 2^16 (and 1, 2, 100), edge scalars (0, 1, r − 1), points at
// infinity, repeated and opposite points, 0/1 scalars, several windows and chunks, an indexed subset of resident points, the batch addition at densities
// 0–100 %, an over-budget allocator naming the stage; skipped with the runtime's reason
// without a GPU. The same phases run on the host in gpu_g2_msm_simulation_test.cpp.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "gpu/cuda_check.hpp"
#include "gpu/memory/device_allocator.hpp"
#include "gpu/msm/g2_msm.hpp"
#include "gpu/msm/msm_host.hpp"
#include "gpu/msm/plan.hpp"
#include "gpu_msm_test_util.hpp"
#include "gpu_test_util.hpp"
#include "test_util.hpp"

namespace {

using namespace prooflab;
using namespace prooflab::test::gpu_msm;
using gpu::memory::DeviceAllocator;
using gpu::msm::MsmOptions;

class GpuG2Msm : public ::testing::Test {
 protected:
  void SetUp() override {
    PROOFLAB_REQUIRE_GPU();
    gpu::check_cuda(cudaStreamCreate(&stream_), "cudaStreamCreate");
    alloc_.emplace();
  }
  void TearDown() override {
    if (stream_) cudaStreamDestroy(stream_);
  }
  G2Affine run(const std::vector<G2Affine>& bases, const std::vector<Scalar>& scalars,
               const MsmOptions& opts = {}) {
    return gpu::msm::g2_msm_from_host(*alloc_, bases, scalars, stream_, opts).to_affine();
  }
  std::optional<DeviceAllocator> alloc_;  // made once a GPU is known to be there
  cudaStream_t stream_ = nullptr;
};

TEST_F(GpuG2Msm, RandomInputs) {
  auto rng = test::test_rng();
  for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{100}, std::size_t{1} << 10,
                        (std::size_t{1} << 12) + 3, std::size_t{1} << 14, std::size_t{1} << 16}) {
    const auto bases = random_g2_bases(n, rng);
    const auto scalars = random_scalars(n, rng);
    const auto expected = cpu_g2_msm(bases, scalars);
    EXPECT_EQ(run(bases, scalars), expected)
        << "n " << n << ", window " << gpu::msm::plan_window_bits(n) << "; " << test::seed_note();
  }
  EXPECT_EQ(alloc_->in_use(), 0u) << "scratch not returned";
}

TEST_F(GpuG2Msm, WindowsAndChunks) {
  auto rng = test::test_rng();
  const std::size_t n = 3000;
  const auto bases = random_g2_bases(n, rng);
  const auto scalars = random_scalars(n, rng);
  const auto expected = cpu_g2_msm(bases, scalars);
  for (unsigned c : {4u, 11u, 16u})
    for (unsigned chunk : {0u, 1u, 500u})
      EXPECT_EQ(run(bases, scalars, {c, chunk, 0}), expected) << "c " << c << " chunk " << chunk;
  EXPECT_EQ(run(bases, scalars, {0, 0, 2}), expected) << "min_blocks 2";
  EXPECT_THROW(run(bases, scalars, {0, 0, 3}), std::invalid_argument);
}

TEST_F(GpuG2Msm, EdgeCases) {
  auto rng = test::test_rng();
  const std::size_t n = 1 << 12;
  const auto bases = random_g2_bases(n, rng);
  auto check = [&](const char* name, const std::vector<G2Affine>& b, const std::vector<Scalar>& k) {
    const auto expected = cpu_g2_msm(b, k);
    EXPECT_EQ(run(b, k), expected) << name;
    EXPECT_EQ(run(b, k, {.window_bits = 6, .entries_per_thread = 5}), expected) << name << " (c 6)";
  };
  check("all zero", bases, std::vector<Scalar>(n, small(0)));
  check("all one", bases, std::vector<Scalar>(n, small(1)));
  check("all r - 1", bases, std::vector<Scalar>(n, r_minus_1()));
  check("one repeated scalar", bases, std::vector<Scalar>(n, random_scalar(rng)));
  check("repeated point and scalar", std::vector<G2Affine>(n, bases[7]),
        std::vector<Scalar>(n, small(3)));
  auto with_inf = bases;
  for (std::size_t i = 0; i < n; i += 5) with_inf[i] = G2Affine::infinity();
  check("points at infinity", with_inf, random_scalars(n, rng));
  check("all points at infinity", std::vector<G2Affine>(n, G2Affine::infinity()),
        random_scalars(n, rng));
  auto opposite = bases;
  for (std::size_t i = 1; i < n; i += 2) opposite[i] = -opposite[i - 1];
  check("opposite pairs", opposite, std::vector<Scalar>(n, small(9)));
  std::vector<Scalar> edges(n);
  for (std::size_t i = 0; i < n; ++i)
    edges[i] = i % 4 == 0 ? small(0) : i % 4 == 1 ? small(1) : i % 4 == 2 ? r_minus_1() : random_scalar(rng);
  check("0, 1, r - 1 and random interleaved", bases, edges);
  EXPECT_TRUE(run({}, {}).is_infinity());
}

TEST_F(GpuG2Msm, IndexedSubsetOfResidentPoints) {
  auto rng = test::test_rng();
  const auto bases = random_g2_bases(1 << 14, rng);
  gpu::msm::G2DeviceBases d(*alloc_, bases, stream_);
  for (std::size_t n : {std::size_t{1}, std::size_t{777}, std::size_t{1} << 13}) {
    std::vector<std::uint32_t> index(n);
    for (auto& i : index) i = static_cast<std::uint32_t>(rng() % bases.size());
    std::vector<G2Affine> gathered;
    for (auto i : index) gathered.push_back(bases[i]);
    const auto scalars = random_scalars(n, rng);
    EXPECT_EQ(gpu::msm::g2_msm_indexed(*alloc_, d.data(), index, scalars, stream_).to_affine(),
              cpu_g2_msm(gathered, scalars))
        << "n " << n;
  }
}

TEST_F(GpuG2Msm, SumSelected) {
  auto rng = test::test_rng();
  for (std::size_t n : {std::size_t{1}, std::size_t{64}, std::size_t{65}, std::size_t{1} << 16}) {
    const auto bases = random_g2_bases(n, rng);
    gpu::msm::G2DeviceBases d(*alloc_, bases, stream_);
    for (int density : {0, 1, 50, 100}) {
      std::vector<std::uint64_t> bitmap((n + 63) / 64, 0);
      auto expected = G2Jacobian::infinity();
      for (std::size_t i = 0; i < n; ++i)
        if (static_cast<int>(rng() % 100) < density) {
          bitmap[i / 64] |= std::uint64_t{1} << (i % 64);
          expected = expected.add_mixed(bases[i]);
        }
      EXPECT_EQ(gpu::msm::g2_sum_selected(*alloc_, d.data(), n, bitmap, stream_).to_affine(),
                expected.to_affine())
          << "n " << n << " density " << density << "%";
    }
  }
}

TEST_F(GpuG2Msm, OverBudgetNamesTheStage) {
  DeviceAllocator small_alloc(1 << 20);
  auto rng = test::test_rng();
  const std::size_t n = 1 << 12;
  const auto bases = random_g2_bases(n, rng);
  const auto scalars = random_scalars(n, rng);
  gpu::msm::G2DeviceBases d(*alloc_, bases, stream_);
  try {
    gpu::msm::g2_msm_indexed(small_alloc, d.data(), {}, scalars, stream_, {}, "b_g2_msm");
    FAIL() << "a 1 MiB budget cannot hold the G2 MSM's scratch";
  } catch (const gpu::memory::DeviceOutOfMemory& e) {
    EXPECT_NE(std::string(e.what()).find("b_g2_msm"), std::string::npos) << e.what();
  }
}

}  // namespace
