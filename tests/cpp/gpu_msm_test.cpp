// The device G1 MSM and batch addition against core/msm (itself tested against the naive
// Σ k·P), point for point.
//  - GpuMsmSimulation: the kernels' per-thread phases run on the host (msm_simulator.hpp):
//    digits, chunk boundaries and the fix-up (tiny chunks force runs across many chunks),
//    the segmented bucket reduction, several window widths. No GPU needed.
//  - GpuMsm: the kernels on the GPU for sizes 1 … 2^20, degenerate inputs (all zero, all
//    one, one repeated scalar, repeated points, points at infinity, r − 1, opposite points),
//    window widths 2 … 22, an indexed subset of resident points, bases streamed from host
//    memory in batches, batch addition; skipped
//    with the runtime's reason without a GPU.
#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/curve/g1.hpp"
#include "core/curve/random_points.hpp"
#include "core/curve/scalar_mul.hpp"
#include "core/field/fr.hpp"
#include "core/msm/msm.hpp"
#include "core/parallel/thread_pool.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/memory/device_allocator.hpp"
#include "gpu/msm/msm_host.hpp"
#include "gpu/msm/msm_simulator.hpp"
#include "gpu/msm/plan.hpp"
#include "gpu_test_util.hpp"
#include "test_util.hpp"

namespace {

using namespace prooflab;
using curve::G1Affine;
using curve::G1Curve;
using curve::G1Jacobian;
using gpu::memory::DeviceAllocator;
using gpu::msm::MsmOptions;
using prooflab::msm::Scalar;

parallel::ThreadPool& pool() {
  static parallel::ThreadPool p(0, "gpu-msm-test");
  return p;
}

Scalar random_scalar(std::mt19937_64& rng) { return field::Fr::random(rng).to_canonical(); }

std::vector<Scalar> random_scalars(std::size_t n, std::mt19937_64& rng) {
  std::vector<Scalar> k(n);
  for (auto& s : k) s = random_scalar(rng);
  return k;
}

std::vector<G1Affine> random_bases(std::size_t n, std::mt19937_64& rng) {
  std::vector<G1Affine> out(n);
  curve::fill_random_points<G1Curve>(out, curve::g1_generator(), rng(), pool());
  return out;
}

G1Affine cpu_msm(const std::vector<G1Affine>& bases, const std::vector<Scalar>& scalars) {
  return prooflab::msm::msm<G1Curve>(bases, scalars, pool()).to_affine();
}

Scalar small(std::uint64_t v) { return Scalar{v, 0, 0, 0}; }
Scalar r_minus_1() {
  Scalar r = field::FrParams::kModulus;
  r[0] -= 1;
  return r;
}

std::string describe(const G1Affine& p) {
  return p.is_infinity() ? std::string("infinity") : "x=" + test::hex(p.x);
}

// ---- the host simulation ------------------------------------------------------------------

TEST(GpuMsmSimulation, PlanShapes) {
  for (std::size_t log_n : {0, 4, 10, 16, 20, 22, 24, 26}) {
    const auto p = gpu::msm::make_run_plan(std::size_t{1} << log_n, {});
    EXPECT_GE(p.digits.windows * p.digits.c, 256u) << "log n " << log_n;
    EXPECT_EQ(p.segments * p.segment, p.digits.buckets);
    EXPECT_GE(p.chunks * p.chunk, p.entries);
    EXPECT_LT(p.digits.sentinel(), 1u << p.end_bit);
  }
  EXPECT_EQ(gpu::msm::plan_window_bits(1u << 20), 16u);
  EXPECT_EQ(gpu::msm::plan_window_bits(1u << 24), 20u);  // the fastest measured on the H200
  EXPECT_THROW(gpu::msm::make_run_plan(8, {.window_bits = 1}), std::invalid_argument);
  EXPECT_THROW(gpu::msm::make_run_plan(8, {.window_bits = 25}), std::invalid_argument);
}

TEST(GpuMsmSimulation, RandomInputsSeveralWindowsAndChunks) {
  auto rng = test::test_rng();
  for (std::size_t n : {1, 2, 7, 64}) {
    const auto bases = random_bases(n, rng);
    const auto scalars = random_scalars(n, rng);
    const auto expected = cpu_msm(bases, scalars);
    for (unsigned c : {0u, 3u, 8u, 13u})
      for (unsigned chunk : {0u, 1u, 3u, 16u}) {
        const auto got = gpu::msm::simulate_msm(
            bases, scalars, {.window_bits = c, .entries_per_thread = chunk}).to_affine();
        EXPECT_EQ(got, expected) << "n " << n << " c " << c << " chunk " << chunk << "; got "
                                 << describe(got) << ", want " << describe(expected) << "; "
                                 << test::seed_note();
      }
  }
}

TEST(GpuMsmSimulation, DegenerateInputs) {
  auto rng = test::test_rng();
  const std::size_t n = 40;
  auto bases = random_bases(n, rng);
  struct Case {
    const char* name;
    std::vector<G1Affine> bases;
    std::vector<Scalar> scalars;
  };
  std::vector<Case> cases;
  cases.push_back({"all zero", bases, std::vector<Scalar>(n, small(0))});
  cases.push_back({"all one", bases, std::vector<Scalar>(n, small(1))});
  cases.push_back({"one repeated scalar", bases, std::vector<Scalar>(n, random_scalar(rng))});
  cases.push_back({"r - 1", bases, std::vector<Scalar>(n, r_minus_1())});
  cases.push_back({"repeated point", std::vector<G1Affine>(n, bases[0]), random_scalars(n, rng)});
  cases.push_back({"repeated point, equal scalars", std::vector<G1Affine>(n, bases[1]),
                   std::vector<Scalar>(n, small(5))});
  auto with_inf = bases;
  for (std::size_t i = 0; i < n; i += 3) with_inf[i] = G1Affine::infinity();
  cases.push_back({"points at infinity", with_inf, random_scalars(n, rng)});
  auto opposite = bases;
  for (std::size_t i = 1; i < n; i += 2) opposite[i] = -opposite[i - 1];
  cases.push_back({"opposite pairs, equal scalars", opposite, std::vector<Scalar>(n, small(77))});
  for (const auto& c : cases) {
    const auto expected = cpu_msm(c.bases, c.scalars);
    for (unsigned chunk : {0u, 2u}) {
      const auto got =
          gpu::msm::simulate_msm(c.bases, c.scalars, {.window_bits = 4, .entries_per_thread = chunk})
              .to_affine();
      EXPECT_EQ(got, expected) << c.name << ", chunk " << chunk;
    }
  }
}

TEST(GpuMsmSimulation, IndexedSubset) {
  auto rng = test::test_rng();
  const auto bases = random_bases(50, rng);
  std::vector<std::uint32_t> index(30);
  for (auto& i : index) i = static_cast<std::uint32_t>(rng() % bases.size());  // repeats too
  std::vector<G1Affine> gathered;
  for (auto i : index) gathered.push_back(bases[i]);
  const auto scalars = random_scalars(index.size(), rng);
  const auto expected = cpu_msm(gathered, scalars);
  for (unsigned chunk : {0u, 3u})
    EXPECT_EQ(gpu::msm::simulate_msm(bases, scalars, {.window_bits = 5, .entries_per_thread = chunk},
                                     index)
                  .to_affine(),
              expected)
        << "chunk " << chunk;
}

TEST(GpuMsmSimulation, SumSelected) {
  auto rng = test::test_rng();
  const std::size_t n = 150;
  const auto bases = random_bases(n, rng);
  std::vector<std::uint64_t> bitmap((n + 63) / 64);
  for (auto& w : bitmap) w = rng();
  bitmap.back() |= ~std::uint64_t{0} << (n % 64);  // bits past n must be ignored
  auto expected = G1Jacobian::infinity();
  for (std::size_t i = 0; i < n; ++i)
    if ((bitmap[i / 64] >> (i % 64)) & 1) expected = expected.add_mixed(bases[i]);
  EXPECT_EQ(gpu::msm::simulate_sum_selected(bases, bitmap).to_affine(), expected.to_affine());
}

// ---- the device ---------------------------------------------------------------------------

class GpuMsm : public ::testing::Test {
 protected:
  void SetUp() override {
    PROOFLAB_REQUIRE_GPU();
    gpu::check_cuda(cudaStreamCreate(&stream_), "cudaStreamCreate");
    alloc_.emplace();
  }
  void TearDown() override {
    if (stream_) cudaStreamDestroy(stream_);
  }
  G1Affine run(const std::vector<G1Affine>& bases, const std::vector<Scalar>& scalars,
               const MsmOptions& opts = {}) {
    return gpu::msm::msm_from_host(*alloc_, bases, scalars, stream_, opts).to_affine();
  }
  std::optional<DeviceAllocator> alloc_;  // made once a GPU is known to be there
  cudaStream_t stream_ = nullptr;
};

TEST_F(GpuMsm, RandomInputsEverySizeClass) {
  auto rng = test::test_rng();
  for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{100},
                        std::size_t{1} << 10, (std::size_t{1} << 12) + 3, std::size_t{1} << 16,
                        std::size_t{1} << 20}) {
    const auto bases = random_bases(n, rng);
    const auto scalars = random_scalars(n, rng);
    const auto expected = cpu_msm(bases, scalars);
    const auto got = run(bases, scalars);
    EXPECT_EQ(got, expected) << "n " << n << ", window " << gpu::msm::plan_window_bits(n) << "; "
                             << test::seed_note();
  }
  EXPECT_EQ(alloc_->in_use(), 0u) << "scratch not returned";
}

TEST_F(GpuMsm, WindowWidthsAndChunks) {
  auto rng = test::test_rng();
  const std::size_t n = 5000;
  const auto bases = random_bases(n, rng);
  const auto scalars = random_scalars(n, rng);
  const auto expected = cpu_msm(bases, scalars);
  for (unsigned c : {2u, 5u, 9u, 12u, 16u, 20u, 22u})
    for (unsigned chunk : {0u, 1u, 7u, 1000u})
      EXPECT_EQ(run(bases, scalars, {.window_bits = c, .entries_per_thread = chunk}), expected)
          << "c " << c << " chunk " << chunk;
}

TEST_F(GpuMsm, DegenerateInputs) {
  auto rng = test::test_rng();
  const std::size_t n = 1 << 14;
  const auto bases = random_bases(n, rng);
  auto check = [&](const char* name, const std::vector<G1Affine>& b, const std::vector<Scalar>& k) {
    const auto expected = cpu_msm(b, k);
    EXPECT_EQ(run(b, k), expected) << name;
    EXPECT_EQ(run(b, k, {.window_bits = 6, .entries_per_thread = 5}), expected) << name << " (c 6)";
  };
  check("all zero", bases, std::vector<Scalar>(n, small(0)));
  check("all one", bases, std::vector<Scalar>(n, small(1)));
  check("one repeated scalar", bases, std::vector<Scalar>(n, random_scalar(rng)));
  check("r - 1", bases, std::vector<Scalar>(n, r_minus_1()));
  check("repeated point", std::vector<G1Affine>(n, bases[7]), random_scalars(n, rng));
  check("repeated point and scalar", std::vector<G1Affine>(n, bases[7]),
        std::vector<Scalar>(n, small(3)));
  auto with_inf = bases;
  for (std::size_t i = 0; i < n; i += 5) with_inf[i] = G1Affine::infinity();
  check("points at infinity", with_inf, random_scalars(n, rng));
  check("all points at infinity", std::vector<G1Affine>(n, G1Affine::infinity()),
        random_scalars(n, rng));
  auto opposite = bases;
  for (std::size_t i = 1; i < n; i += 2) opposite[i] = -opposite[i - 1];
  check("opposite pairs", opposite, std::vector<Scalar>(n, small(9)));
  std::vector<Scalar> bits(n);
  for (auto& s : bits) s = small(rng() & 1);
  check("0/1 scalars", bases, bits);
}

TEST_F(GpuMsm, IndexedSubsetOfResidentPoints) {
  auto rng = test::test_rng();
  const auto bases = random_bases(1 << 16, rng);
  gpu::msm::DeviceBases d(*alloc_, bases, stream_);
  gpu::msm::Msm engine(*alloc_);
  for (std::size_t n : {std::size_t{1}, std::size_t{777}, std::size_t{1} << 15}) {
    std::vector<std::uint32_t> index(n);
    for (auto& i : index) i = static_cast<std::uint32_t>(rng() % bases.size());
    std::vector<G1Affine> gathered;
    for (auto i : index) gathered.push_back(bases[i]);
    const auto scalars = random_scalars(n, rng);
    EXPECT_EQ(gpu::msm::msm_indexed(engine, d.data(), index, scalars, stream_).to_affine(),
              cpu_msm(gathered, scalars))
        << "n " << n;
  }
}

TEST_F(GpuMsm, StreamedBasesEqualResident) {
  auto rng = test::test_rng();
  const std::size_t n = (1 << 14) + 5;
  const auto bases = random_bases(n, rng);
  const auto scalars = random_scalars(n, rng);
  const auto expected = cpu_msm(bases, scalars);
  gpu::memory::DeviceBuffer<Scalar> d_scalars(*alloc_, n, stream_, "test");
  gpu::check_cuda(cudaMemcpyAsync(d_scalars.get(), scalars.data(), n * sizeof(Scalar),
                                  cudaMemcpyHostToDevice, stream_), "cudaMemcpyAsync");
  const auto* k = reinterpret_cast<const std::uint32_t*>(d_scalars.get());
  gpu::msm::Msm engine(*alloc_);
  // Pageable and pinned host bases; one batch, several with a short last one, one per point.
  gpu::msm::G1AffineRaw* pinned = nullptr;
  gpu::check_cuda(cudaMallocHost(&pinned, n * sizeof(G1Affine)), "cudaMallocHost");
  std::memcpy(pinned, bases.data(), n * sizeof(G1Affine));
  const auto* pageable = reinterpret_cast<const gpu::msm::G1AffineRaw*>(bases.data());
  for (const auto* host : {pageable, static_cast<const gpu::msm::G1AffineRaw*>(pinned)})
    for (std::size_t batch : {n, std::size_t{3000}, std::size_t{1} << 12})
      EXPECT_EQ(gpu::msm::to_jacobian(engine.run_streamed(host, k, n, batch, stream_)).to_affine(),
                expected)
          << (host == pageable ? "pageable" : "pinned") << ", batch " << batch;
  EXPECT_EQ(gpu::msm::to_jacobian(engine.run_streamed(pinned, k, 7, 1, stream_)).to_affine(),
            cpu_msm(std::vector<G1Affine>(bases.begin(), bases.begin() + 7),
                    std::vector<Scalar>(scalars.begin(), scalars.begin() + 7)))
      << "batches of one point";
  EXPECT_THROW(engine.run_streamed(pinned, k, n, 0, stream_), std::invalid_argument);
  cudaFreeHost(pinned);
}

TEST_F(GpuMsm, ZeroPointsIsInfinity) {
  EXPECT_TRUE(run({}, {}).is_infinity());
}

TEST_F(GpuMsm, SumSelected) {
  auto rng = test::test_rng();
  for (std::size_t n : {std::size_t{1}, std::size_t{63}, std::size_t{64}, std::size_t{65},
                        std::size_t{100000}, std::size_t{1} << 20}) {
    const auto bases = random_bases(n, rng);
    for (int density : {0, 1, 50, 100}) {
      std::vector<std::uint64_t> bitmap((n + 63) / 64, 0);
      auto expected = G1Jacobian::infinity();
      std::vector<G1Affine> chosen;
      for (std::size_t i = 0; i < n; ++i)
        if (static_cast<int>(rng() % 100) < density) {
          bitmap[i / 64] |= std::uint64_t{1} << (i % 64);
          chosen.push_back(bases[i]);
        }
      expected = prooflab::msm::msm<G1Curve>(chosen, std::vector<Scalar>(chosen.size(), small(1)),
                                              pool());
      gpu::msm::DeviceBases d(*alloc_, bases, stream_);
      gpu::msm::Msm engine(*alloc_);
      const auto got = gpu::msm::sum_selected(engine, d.data(), n, bitmap, stream_).to_affine();
      EXPECT_EQ(got, expected.to_affine()) << "n " << n << " density " << density << "%";
    }
  }
}

TEST_F(GpuMsm, OverBudgetNamesTheStage) {
  DeviceAllocator small_alloc(1 << 20);
  auto rng = test::test_rng();
  const std::size_t n = 1 << 12;
  const auto bases = random_bases(n, rng);
  const auto scalars = random_scalars(n, rng);
  gpu::msm::DeviceBases d(*alloc_, bases, stream_);
  gpu::msm::Msm engine(small_alloc);
  try {
    gpu::msm::msm(engine, d.data(), scalars, stream_, {}, "tail_msm");
    FAIL() << "a 1 MiB budget cannot hold the MSM's scratch";
  } catch (const gpu::memory::DeviceOutOfMemory& e) {
    EXPECT_NE(std::string(e.what()).find("tail_msm"), std::string::npos) << e.what();
  }
}

}  // namespace
