// The device G1 MSM and batch addition against core/msm, point for point: sizes 1 … 2^20,
// degenerate inputs (all zero, all one, one repeated scalar, repeated points, points at
// infinity, r − 1, opposite points), window widths 2 … 22, an indexed subset of resident
// points, bases streamed from host memory in batches, batch addition; skipped with the
// runtime's reason without a GPU. The kernels' phases are checked on the host, without a GPU,
// by gpu_msm_simulation_test.cpp.
#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu/cuda_check.hpp"
#include "gpu/memory/device_allocator.hpp"
#include "gpu/msm/fixed_base.hpp"
#include "gpu/msm/msm_host.hpp"
#include "gpu/msm/msm_simulator.hpp"
#include "gpu/msm/group_table.hpp"
#include "gpu/msm/plan.hpp"
#include "gpu_msm_test_util.hpp"
#include "gpu_test_util.hpp"
#include "test_util.hpp"

namespace {

using namespace prooflab;
using namespace prooflab::test::gpu_msm;
using gpu::memory::DeviceAllocator;
using gpu::msm::MsmOptions;

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

// The fixed-base table built on the device equals the simulator's (the same per-point step on
// the host), and the fixed-base mode equals core/msm: sizes, widths (the planned one, 22, 24),
// chunks, degenerate scalars; its scratch goes back; a width other than the table's is refused.
TEST_F(GpuMsm, FixedBaseTableAndMsm) {
  auto rng = test::test_rng();
  gpu::msm::Msm engine(*alloc_);
  {
    const auto bases = random_bases(33, rng);
    gpu::msm::DeviceBases d(*alloc_, bases, stream_);
    const gpu::msm::FixedBaseTable table(*alloc_, d.data(), bases.size(), 16, stream_);
    std::vector<G1Affine> got(bases.size() * table.windows());
    gpu::check_cuda(cudaMemcpy(got.data(), table.data(), got.size() * sizeof(G1Affine), cudaMemcpyDeviceToHost),
                    "cudaMemcpy(table)");
    EXPECT_EQ(got, gpu::msm::simulate_fixed_base_table(bases, 16)) << test::seed_note();
  }
  for (std::size_t n : {std::size_t{1}, std::size_t{100}, (std::size_t{1} << 12) + 3, std::size_t{1} << 16}) {
    const auto bases = random_bases(n, rng);
    gpu::msm::DeviceBases d(*alloc_, bases, stream_);
    std::vector<std::pair<const char*, std::vector<Scalar>>> cases;
    cases.push_back({"random", random_scalars(n, rng)});
    if (n == 100) {
      cases.push_back({"all zero", std::vector<Scalar>(n, small(0))});
      cases.push_back({"r - 1", std::vector<Scalar>(n, r_minus_1())});
      cases.push_back({"one repeated scalar", std::vector<Scalar>(n, random_scalar(rng))});
    }
    for (unsigned c : {0u, 22u, 24u}) {
      if (n > 4096 && c != 0) continue;
      const gpu::msm::FixedBaseTable table(*alloc_, d.data(), n, c, stream_);
      for (const auto& [name, scalars] : cases)
        for (unsigned chunk : {0u, 3u}) {
          const auto got =
              gpu::msm::msm_fixed_base(engine, table, scalars, stream_, {.entries_per_thread = chunk}).to_affine();
          EXPECT_EQ(got, cpu_msm(bases, scalars)) << name << ", n " << n << ", c " << table.window_bits()
                                                  << ", chunk " << chunk << "; " << test::seed_note();
        }
      EXPECT_THROW(gpu::msm::msm_fixed_base(engine, table, cases[0].second, stream_,
                                            {.window_bits = table.window_bits() - 1}),
                   std::invalid_argument);
    }
  }
  EXPECT_EQ(alloc_->in_use(), 0u) << "scratch or table not returned";
}

// Host scalars in pieces (run_host_scalars, run_fixed_base_host_scalars), pageable and pinned,
// each piece sorted in turn and (sort_ahead) the next one's sort beside this one's accumulation:
// the sums equal core/msm for one piece (uploaded first), the planned pieces (one below 2^21:
// ScalarPiecesPlan), several, and one point per piece; a repeated scalar puts entries of one bucket in
// every piece; the shape counts the pieces; scratch goes back; a wrong piece count is refused
// before anything is copied; the scratch estimate covers the allocator's peak.
TEST_F(GpuMsm, HostScalarsInPiecesEqualCore) {
  auto rng = test::test_rng();
  gpu::msm::Msm engine(*alloc_);
  const std::size_t n = (std::size_t{1} << 18) + 7;
  const auto bases = random_bases(n, rng);
  auto scalars = random_scalars(n, rng);
  for (std::size_t i = 0; i < n; i += 3) scalars[i] = scalars[1];
  const auto expected = cpu_msm(bases, scalars);
  gpu::msm::DeviceBases d(*alloc_, bases, stream_);
  Scalar* pinned = nullptr;
  gpu::check_cuda(cudaMallocHost(&pinned, n * sizeof(Scalar)), "cudaMallocHost");
  std::memcpy(pinned, scalars.data(), n * sizeof(Scalar));
  const gpu::msm::FixedBaseTable table(*alloc_, d.data(), n, 0, stream_);
  const std::uint64_t resident = alloc_->in_use();  // the bases and the table
  const Scalar* const hosts[] = {pinned, scalars.data()};
  for (const Scalar* host : hosts)
    for (unsigned pieces : {1u, 0u, 2u, 9u})
      for (int mode = 0; mode < 3; ++mode) {  // sort_ahead off, on, on at the highest priority
        const bool ahead = mode > 0;
        const std::string where = std::string(host == pinned ? "pinned" : "pageable") +
                                  (mode == 1 ? ", sort_ahead" : mode == 2 ? ", sort_ahead_priority" : "");
        const auto* h = reinterpret_cast<const std::uint32_t*>(host);
        const gpu::msm::MsmOptions opts{.scalar_pieces = pieces, .sort_ahead = ahead, .sort_ahead_priority = mode == 2};
        gpu::msm::MsmShape shape;
        alloc_->reset_peak();
        const auto got = engine.run_host_scalars(d.data(), h, n, stream_, opts, "test", &shape);
        EXPECT_EQ(gpu::msm::to_jacobian(got).to_affine(), expected) << where << ", " << pieces << " pieces; "
                                                                   << test::seed_note();
        EXPECT_EQ(shape.pieces, pieces == 0 ? gpu::msm::plan_scalar_pieces(n, 0, ahead).size() : pieces);
        EXPECT_LE(alloc_->peak() - resident, shape.scratch_bytes) << where << ", " << pieces << " pieces";
        const auto fixed = engine.run_fixed_base_host_scalars(table, h, stream_, opts);
        EXPECT_EQ(gpu::msm::to_jacobian(fixed).to_affine(), expected) << where << ", fixed-base, " << pieces
                                                                     << " pieces; " << test::seed_note();
      }
  const std::vector<Scalar> few(scalars.begin(), scalars.begin() + 5);
  EXPECT_EQ(gpu::msm::to_jacobian(engine.run_host_scalars(d.data(), reinterpret_cast<const std::uint32_t*>(pinned),
                                                           5, stream_, {.scalar_pieces = 64}))
                .to_affine(),
            cpu_msm(std::vector<G1Affine>(bases.begin(), bases.begin() + 5), few))
      << "one point per piece";
  EXPECT_THROW(engine.run_host_scalars(d.data(), reinterpret_cast<const std::uint32_t*>(pinned), n, stream_,
                                       {.scalar_pieces = gpu::msm::kMaxScalarPieces + 1}),
               std::invalid_argument);
  cudaFreeHost(pinned);
  EXPECT_EQ(alloc_->in_use(), resident) << "scratch not returned";
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

// The group tables (pairs and groups of 4) built on the device equal the simulator's (special
// groups included), and the batch addition over them equals core's sum of the selected bases:
// sizes (one point: no groups, odd, a short last group, 2^20), densities 0 / 1 / 50 / 100 %;
// scratch and tables go back.
TEST_F(GpuMsm, GroupTablesAndSumSelectedGrouped) {
  auto rng = test::test_rng();
  gpu::msm::Msm engine(*alloc_);
  const std::uint64_t before = alloc_->in_use();
  for (std::size_t n : {std::size_t{1}, std::size_t{401}, std::size_t{100001}, std::size_t{1} << 20}) {
    auto bases = random_bases(n, rng);
    if (n >= 10) {
      bases[1] = bases[0];
      bases[3] = -bases[2];
      bases[4] = bases[7] = bases[8] = bases[9] = G1Affine::infinity();
    }
    gpu::msm::DeviceBases d(*alloc_, bases, stream_);
    for (const unsigned group : {2u, 4u}) {
      const gpu::msm::GroupTable table(*alloc_, d.data(), n, group, stream_);
      EXPECT_EQ(table.group(), group);
      if (n <= 100001) {
        std::vector<G1Affine> got(gpu::msm::GroupTable::entries(n, group));
        if (!got.empty())
          gpu::check_cuda(
              cudaMemcpy(got.data(), table.data(), got.size() * sizeof(G1Affine), cudaMemcpyDeviceToHost),
              "cudaMemcpy(group table)");
        EXPECT_EQ(got, gpu::msm::simulate_group_table(bases, group))
            << "n " << n << " group " << group << "; " << test::seed_note();
      }
      for (int density : {0, 1, 50, 100}) {
        std::vector<std::uint64_t> bitmap((n + 63) / 64, 0);
        std::vector<G1Affine> chosen;
        for (std::size_t i = 0; i < n; ++i)
          if (static_cast<int>(rng() % 100) < density) {
            bitmap[i / 64] |= std::uint64_t{1} << (i % 64);
            chosen.push_back(bases[i]);
          }
        const auto expected =
            prooflab::msm::msm<G1Curve>(chosen, std::vector<Scalar>(chosen.size(), small(1)), pool()).to_affine();
        const auto got = gpu::msm::sum_selected(engine, d.data(), n, bitmap, stream_, "test", &table);
        EXPECT_EQ(got.to_affine(), expected)
            << "n " << n << " group " << group << " density " << density << "%; " << test::seed_note();
      }
    }
  }
  EXPECT_THROW(gpu::msm::GroupTable::entries(8, 3), std::invalid_argument);
  EXPECT_EQ(alloc_->in_use(), before) << "scratch or table not returned";
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
