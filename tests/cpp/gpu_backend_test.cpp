// The engine's CUDA backend (gpu/backend/cuda_backend): its GPU phase equals the CPU backend's
// sums exactly; the engine proves and verifies through it under every lock policy; a VRAM
// budget too small fails jobs (naming the stage and the budget), not the batch; the
// device-global calls of the two-lock fallback run while a phase is in flight. Without a GPU
// the device cases skip with the CUDA runtime's reason; the error paths and the memory
// estimate are checked everywhere.
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/circuits/circuit.hpp"
#include "core/engine/cpu_backend.hpp"
#include "core/engine/engine.hpp"
#include "core/groth16/prover.hpp"
#include "core/groth16/setup.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_info.hpp"
#include "gpu/backend/cuda_backend.hpp"
#include "gpu/msm/msm.hpp"
#include "gpu/r1cs/device_matrices.hpp"
#include "harness/backend_factory.hpp"
#include "engine_devices_util.hpp"
#include "engine_timeline_util.hpp"
#include "test_util.hpp"

namespace {

using namespace prooflab;
namespace fs = std::filesystem;
using gpu::engine::CudaBackend;

std::string why_no_gpu() {
  std::string why;
  return gpu::list_devices(&why).empty() ? (why.empty() ? "no CUDA device" : why) : "";
}

#define REQUIRE_GPU()                                       \
  do {                                                      \
    const std::string why = why_no_gpu();                   \
    if (!why.empty()) GTEST_SKIP() << "no GPU: " << why;    \
  } while (0)

parallel::ThreadPool& pool() {
  static parallel::ThreadPool p(0, "gpu-backend-test");
  return p;
}

// A circuit, its R1CS and a key, made once per (circuit, constraints).
struct Setup {
  std::unique_ptr<circuits::Circuit> circuit;
  r1cs::R1cs cs;
  groth16::ProvingKey pk;
};

const Setup& setup_for(const std::string& name, std::uint64_t constraints) {
  static std::map<std::pair<std::string, std::uint64_t>, std::unique_ptr<Setup>> cache;
  auto& slot = cache[{name, constraints}];
  if (!slot) {
    slot = std::make_unique<Setup>();
    slot->circuit = circuits::make_circuit(name, constraints, 0);
    slot->cs = circuits::synthesize_shape(*slot->circuit);
    slot->pk = groth16::generate_parameters(slot->cs, groth16::ToxicWaste::generate(constraints + 7), pool());
  }
  return *slot;
}

void expect_same(const curve::G1Jacobian& gpu, const curve::G1Jacobian& cpu, const char* what) {
  EXPECT_TRUE(gpu.to_affine() == cpu.to_affine()) << what << " differs from the CPU backend's";
}

void expect_same_sums(const groth16::GpuPhaseSums& got, const groth16::GpuPhaseSums& want) {
  expect_same(got.h, want.h, "H");
  expect_same(got.l, want.l, "L");
  expect_same(got.a, want.a, "A");
  expect_same(got.b_g1, want.b_g1, "B_G1");
}

// ---------------------------------------------------------------- without a GPU

TEST(CudaBackendNoGpu, WithoutADeviceConstructionSaysWhyInTheRuntimesWords) {
  const std::string why = why_no_gpu();
  if (why.empty()) GTEST_SKIP() << "a GPU is visible: this is the no-GPU error path";
  try {
    CudaBackend backend(1, 0);
    FAIL() << "constructed a CUDA backend without a device";
  } catch (const engine::ConfigError& e) {
    FAIL() << "a missing device is not a config error: " << e.what();
  } catch (const std::runtime_error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("backend 'cuda': no usable CUDA device"), std::string::npos) << msg;
  }
  engine::EngineConfig cfg;
  cfg.backend = "cuda";
  EXPECT_THROW(harness::make_backend(cfg), std::runtime_error);
  const auto meta = harness::gpu_metadata(cfg);
  EXPECT_TRUE(meta.contains("error")) << meta.dump();
}

// What stays resident per device: the G1 queries (H's fixed-base table in H's place with
// fixed_base_h) and, with b_g2_on_device, the G2 query at 192 bytes a point; counted from the
// key's own sizes.
TEST(CudaBackendNoGpu, ResidentBytesCountTheG2QueryWhenItGoesOnTheDevice) {
  const auto& s = setup_for("porep-like", 1 << 10);
  ASSERT_FALSE(s.pk.b_g2.empty());
  const std::uint64_t g1 = 96ull * (s.pk.h.size() + s.pk.l.size() + s.pk.a.size() + s.pk.b_g1.size());
  EXPECT_EQ(CudaBackend::resident_key_bytes(s.pk), g1);
  EXPECT_EQ(CudaBackend::resident_bytes(s.pk, {}), g1);
  EXPECT_EQ(CudaBackend::resident_bytes(s.pk, {.b_g2_on_device = true}), g1 + 192ull * s.pk.b_g2.size());
  EXPECT_EQ(CudaBackend::resident_bytes(s.pk, {.fixed_base_h = true, .b_g2_on_device = true}),
            CudaBackend::resident_key_bytes(s.pk, true) + 192ull * s.pk.b_g2.size());
  // batch_add_tables: ⌈n/2⌉ points of 96 bytes (pairs) or 11 per ⌈n/4⌉ (quads) beside each of
  // L, A and B_G1.
  const auto up = [](std::size_t n, std::size_t g) { return (n + g - 1) / g; };
  const std::uint64_t pairs = 96ull * (up(s.pk.l.size(), 2) + up(s.pk.a.size(), 2) + up(s.pk.b_g1.size(), 2));
  const std::uint64_t quads =
      96ull * 11 * (up(s.pk.l.size(), 4) + up(s.pk.a.size(), 4) + up(s.pk.b_g1.size(), 4));
  EXPECT_EQ(CudaBackend::resident_key_bytes(s.pk, false, 2), g1 + pairs);
  EXPECT_EQ(CudaBackend::resident_bytes(s.pk, {.batch_add_group = 2}), g1 + pairs);
  EXPECT_EQ(CudaBackend::resident_key_bytes(s.pk, false, 4), g1 + quads);
  EXPECT_EQ(CudaBackend::resident_bytes(s.pk, {.batch_add_group = 4}), g1 + quads);
}

// ---------------------------------------------------------------- on a GPU

// msm::scratch_bytes asks CUB for its sort's temporary storage, which needs a device.
TEST(CudaBackend, PartitionEstimateCoversInputsAndTheLargestScratch) {
  REQUIRE_GPU();
  for (unsigned k = 1; k <= 27; ++k) {
    const std::size_t n = std::size_t{1} << k;
    const std::uint64_t bytes = CudaBackend::partition_bytes(n);
    EXPECT_GE(bytes, 96ull * n) << "2^" << k << ": a, b, c alone";
    EXPECT_GE(bytes, 96ull * n + gpu::msm::scratch_bytes(n - 1)) << "2^" << k << ": MSM of H";
    const std::size_t chunk = CudaBackend::tail_chunk(n);
    EXPECT_GE(chunk, 1u);
    EXPECT_GE(bytes, 96ull * n + 36ull * chunk + gpu::msm::scratch_bytes(chunk))  // positions + scalars
        << "2^" << k << ": a tail chunk";
    if (k > 11) EXPECT_GE(bytes, 192ull * n) << "2^" << k << ": H's three scratch arrays";
    if (k > 1) EXPECT_GT(bytes, CudaBackend::partition_bytes(n / 2));
    EXPECT_GE(bytes, 96ull * n + CudaBackend::batch_add_bytes(n)) << "2^" << k << ": a batch addition";
    // overlap_batch_add: a batch addition and a tail chunk at once.
    EXPECT_GE(CudaBackend::partition_bytes(n, {.overlap_batch_add = true}),
              96ull * n + CudaBackend::batch_add_bytes(n) + 36ull * chunk + gpu::msm::scratch_bytes(chunk))
        << "2^" << k << ": a batch addition beside a tail chunk";
    // tails_beside_h: H's MSM and a tail chunk at once (and a batch addition with overlap).
    EXPECT_GE(CudaBackend::partition_bytes(n, {.tails_beside_h = true}),
              96ull * n + gpu::msm::scratch_bytes(n - 1) + 36ull * chunk + gpu::msm::scratch_bytes(chunk))
        << "2^" << k << ": H's MSM beside a tail chunk";
    EXPECT_GE(CudaBackend::partition_bytes(n, {.overlap_batch_add = true, .tails_beside_h = true}),
              96ull * n + gpu::msm::scratch_bytes(n - 1) + CudaBackend::batch_add_bytes(n) + 36ull * chunk +
                  gpu::msm::scratch_bytes(chunk))
        << "2^" << k << ": H's MSM beside a batch addition and a tail chunk";
  }
}

// The porep-like 2^24 tails (620k, 620k and 413k points: 3.7 % of L and A, 9.1 % of B_G1) run at
// once; three tails of a whole chunk each do not; one whole chunk alone does.
TEST(CudaBackend, TailsRunAtOnceWhereTheirFirstChunksFitOne) {
  REQUIRE_GPU();
  const std::size_t n = std::size_t{1} << 24, chunk = CudaBackend::tail_chunk(n);
  EXPECT_TRUE(CudaBackend::tails_together(n, 620'000, 620'000, 413'000));
  EXPECT_FALSE(CudaBackend::tails_together(n, chunk, chunk, chunk));
  EXPECT_FALSE(CudaBackend::tails_together(n, 3 * chunk, chunk, 1));
  EXPECT_TRUE(CudaBackend::tails_together(n, chunk, 0, 0));
  EXPECT_TRUE(CudaBackend::tails_together(n, 5 * chunk, 0, 0)) << "chunks beyond the first run later";
}

TEST(CudaBackend, TooManyDevicesNamesTheKeyAndBothNumbers) {
  REQUIRE_GPU();
  const int visible = static_cast<int>(gpu::list_devices().size());
  try {
    CudaBackend backend(visible + 1, 0);
    FAIL();
  } catch (const engine::ConfigError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("config key 'devices'"), std::string::npos) << msg;
    EXPECT_NE(msg.find(std::to_string(visible + 1)), std::string::npos) << msg;
    EXPECT_NE(msg.find(std::to_string(visible) + " CUDA device"), std::string::npos) << msg;
  }
  const auto info = gpu::list_devices().front();
  EXPECT_THROW(CudaBackend(1, info.memory_bytes + 1), engine::ConfigError);
  CudaBackend backend(1, 0);
  EXPECT_EQ(backend.name(), "cuda");
  EXPECT_LT(backend.vram_budget(0), info.memory_bytes);
  EXPECT_GE(backend.vram_budget(0), info.memory_bytes - std::max<std::uint64_t>(1ull << 30, info.memory_bytes / 20));
  EXPECT_EQ(backend.vram_used(0), 0u);
  engine::EngineConfig cfg;
  cfg.backend = "cuda";
  const auto meta = harness::gpu_metadata(cfg);
  EXPECT_EQ(meta.value("name", ""), info.name) << meta.dump();
  EXPECT_EQ(meta.value("sms", 0), info.sm_count);
}

struct PhaseCase {
  const char* circuit;
  std::uint64_t constraints;
};

class CudaBackendPhase : public ::testing::TestWithParam<PhaseCase> {
 protected:
  // A partition of the case's circuit, its MSM plan and the CPU backend's sums for it.
  struct Inputs {
    groth16::SynthesizedPartition part;
    groth16::MsmPlan plan;
    groth16::GpuPhaseSums want;
  };
  static Inputs inputs(const struct Setup& s, std::uint64_t seed) {
    Inputs in;
    const auto circuit = circuits::make_circuit(GetParam().circuit, GetParam().constraints, seed);
    in.part = groth16::synthesize(s.cs, circuits::synthesize_witness(*circuit), pool());
    in.plan = groth16::prep_msm(s.pk, s.cs, in.part.witness);
    engine::CpuBackend cpu(1, 0, 0);
    auto cpu_buffers = cpu.stage(0, in.part, "test");
    in.want = cpu.run_gpu_phase(0, s.pk, *cpu_buffers, in.plan, [](trace::Stage, std::int64_t) {});
    return in;
  }

  // One backend for every case: each case brings another key, which replaces the resident one.
  // Torn down with the suite, while the CUDA runtime is still there (not at exit).
  static CudaBackend& backend() {
    if (!backend_) backend_ = std::make_unique<CudaBackend>(1, 0);
    return *backend_;
  }
  static void TearDownTestSuite() { backend_.reset(); }
  static inline std::unique_ptr<CudaBackend> backend_;

  // Two phases on `cuda` (made with `options`; the first uploads the key): each gives the CPU
  // backend's sums and reports ntt_h, batch_add, tail_msm in that order, adding up to no more
  // than the call's wall time; the second's peak stays within partition_bytes(n, options).
  static void expect_phases_tile_and_equal_the_cpu(CudaBackend& cuda, const struct Setup& s, const Inputs& in,
                                                   const CudaBackend::Options& options, const std::string& what) {
    for (int rep = 0; rep < 2; ++rep) {
      auto buffers = cuda.stage(0, in.part, "test");
      const std::uint64_t staged = cuda.vram_used(0);
      cuda.reset_vram_peak(0);
      std::vector<std::string> substages;
      std::int64_t reported = 0;
      const auto t0 = std::chrono::steady_clock::now();
      const auto got = cuda.run_gpu_phase(0, s.pk, *buffers, in.plan, [&](trace::Stage sub, std::int64_t us) {
        substages.emplace_back(trace::stage_name(sub));
        EXPECT_GE(us, 0) << trace::stage_name(sub) << " " << what;
        reported += us;
      });
      const auto wall = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0);
      EXPECT_EQ(substages, (std::vector<std::string>{"ntt_h", "batch_add", "tail_msm"})) << what;
      EXPECT_LE(reported, wall.count()) << what << " rep " << rep;
      expect_same_sums(got, in.want);
      if (rep == 1) {
        const std::size_t n = in.part.a.size();
        EXPECT_LE(cuda.vram_peak(0) - staged, CudaBackend::partition_bytes(n, options) - 96ull * n) << what;
      }
    }
  }
};

TEST_P(CudaBackendPhase, EqualsTheCpuBackendsSumsExactly) {
  REQUIRE_GPU();
  const auto& s = setup_for(GetParam().circuit, GetParam().constraints);
  const Inputs in = inputs(s, 11);
  const auto& [part, plan, want] = in;
  const std::size_t n = part.a.size();

  CudaBackend& cuda = backend();
  const std::uint64_t used0 = cuda.vram_used(0);
  auto buffers = cuda.stage(0, part, "test");
  EXPECT_EQ(buffers->bytes(), 96ull * n);
  EXPECT_EQ(cuda.vram_used(0), used0 + 96ull * n);
  std::vector<std::string> substages;
  const auto got = cuda.run_gpu_phase(0, s.pk, *buffers, plan, [&](trace::Stage sub, std::int64_t us) {
    substages.emplace_back(trace::stage_name(sub));
    EXPECT_GE(us, 0) << trace::stage_name(sub);
  });
  EXPECT_EQ(substages, (std::vector<std::string>{"ntt_h", "batch_add", "tail_msm"}));
  expect_same_sums(got, want);
  // What stays after the phase: this key's bases and the NTT tables, no partition memory.
  const std::uint64_t resident = cuda.vram_used(0);
  EXPECT_GE(resident, CudaBackend::resident_key_bytes(s.pk));
  buffers.reset();
  EXPECT_EQ(cuda.vram_used(0), resident - 96ull * n);

  // A second phase on the same key: nothing uploaded again, the same sums.
  const std::uint64_t before = cuda.vram_used(0);
  auto again = cuda.stage(0, part, "test");
  const auto got2 = cuda.run_gpu_phase(0, s.pk, *again, plan, [](trace::Stage, std::int64_t) {});
  again.reset();
  EXPECT_EQ(cuda.vram_used(0), before);
  expect_same(got2.h, want.h, "H (second phase)");
  expect_same(got2.l, want.l, "L (second phase)");
}

// fixed_base_h = on (issue 24 item 3): the MSM of H over the H query's fixed-base table gives
// the CPU backend's sums exactly; the table (W times the query) stays in the key's place and
// resident_key_bytes counts it; a second phase builds nothing again.
TEST_P(CudaBackendPhase, FixedBaseHGivesTheCpuBackendsSums) {
  REQUIRE_GPU();
  const auto& s = setup_for(GetParam().circuit, GetParam().constraints);
  const Inputs in = inputs(s, 13);
  CudaBackend cuda(1, 0, {.fixed_base_h = true});
  EXPECT_TRUE(cuda.fixed_base_h());
  EXPECT_GT(CudaBackend::resident_key_bytes(s.pk, true), CudaBackend::resident_key_bytes(s.pk));
  auto buffers = cuda.stage(0, in.part, "test");
  expect_same_sums(cuda.run_gpu_phase(0, s.pk, *buffers, in.plan, [](trace::Stage, std::int64_t) {}), in.want);
  buffers.reset();
  const std::uint64_t resident = cuda.vram_used(0);
  EXPECT_GE(resident, CudaBackend::resident_key_bytes(s.pk, true));
  auto again = cuda.stage(0, in.part, "test");
  expect_same_sums(cuda.run_gpu_phase(0, s.pk, *again, in.plan, [](trace::Stage, std::int64_t) {}), in.want);
  again.reset();
  EXPECT_EQ(cuda.vram_used(0), resident);
}

// h_basis = coset (issue 24 item 3): a key from the same toxic waste with its H query in the
// coset's Lagrange basis; the six-transform H on the device, plain and fixed-base, gives the
// same sums as the CPU backend with that key and the same H sum as the monomial key's; and
// coset_fold_c (no C·w staged, or with sparse_products on the device none computed; four
// transforms) the CPU backend's sums with its key.
TEST_P(CudaBackendPhase, CosetLagrangeHGivesTheCpuBackendsSums) {
  REQUIRE_GPU();
  const auto& s = setup_for(GetParam().circuit, GetParam().constraints);
  const groth16::ProvingKey coset = groth16::generate_parameters(
      s.cs, groth16::ToxicWaste::generate(GetParam().constraints + 7), pool(), nullptr,
      groth16::HBasis::kCosetLagrange);
  const Inputs mono = inputs(s, 23);
  const groth16::MsmPlan plan = groth16::prep_msm(coset, s.cs, mono.part.witness);
  engine::CpuBackend cpu(1, 0, 0);
  auto cpu_buffers = cpu.stage(0, mono.part, "test");
  const auto want = cpu.run_gpu_phase(0, coset, *cpu_buffers, plan, [](trace::Stage, std::int64_t) {});
  expect_same(want.h, mono.want.h, "the coset key's H on the CPU, against the monomial key's,");
  // coset_fold_c: no C·w staged; H's and L's sums each differ from the other keys' by the folded
  // share, their sum does not.
  const groth16::ProvingKey folded = groth16::generate_parameters(
      s.cs, groth16::ToxicWaste::generate(GetParam().constraints + 7), pool(), nullptr,
      groth16::HBasis::kCosetFoldedC);
  auto no_c = mono.part;
  no_c.c.clear();
  const groth16::MsmPlan folded_plan = groth16::prep_msm(folded, s.cs, no_c.witness);
  auto cpu_no_c = cpu.stage(0, no_c, "test");
  const auto want_folded = cpu.run_gpu_phase(0, folded, *cpu_no_c, folded_plan, [](trace::Stage, std::int64_t) {});
  expect_same(want_folded.h.add(want_folded.l), mono.want.h.add(mono.want.l),
              "the folded key's H + L on the CPU, against the monomial key's,");
  for (bool fixed_base : {false, true}) {
    SCOPED_TRACE(fixed_base ? "fixed_base_h" : "plain");
    CudaBackend cuda(1, 0, {.fixed_base_h = fixed_base});
    auto buffers = cuda.stage(0, mono.part, "test");
    expect_same_sums(cuda.run_gpu_phase(0, coset, *buffers, plan, [](trace::Stage, std::int64_t) {}), want);
    buffers.reset();
    auto folded_buffers = cuda.stage(0, no_c, "test");
    expect_same_sums(cuda.run_gpu_phase(0, folded, *folded_buffers, folded_plan, [](trace::Stage, std::int64_t) {}),
                     want_folded);
    folded_buffers.reset();
    // sparse_products = gpu: the device computes A·w and B·w only (no c buffer staged).
    auto deferred = cuda.stage(0, groth16::defer_products(s.cs, no_c.witness, false), "test");
    expect_same_sums(cuda.run_gpu_phase(0, folded, *deferred, folded_plan, [](trace::Stage, std::int64_t) {}),
                     want_folded);
  }
}

// overlap_batch_add = on (issue 24 item 3): the batch additions on their own stream beside the
// tails give the CPU backend's sums exactly; the sub-stages still come as ntt_h, batch_add,
// tail_msm and tile the call (their durations add up to no more than its wall time); the
// phase's peak stays within partition_bytes with the option.
TEST_P(CudaBackendPhase, OverlapBatchAddGivesTheCpuBackendsSums) {
  REQUIRE_GPU();
  const auto& s = setup_for(GetParam().circuit, GetParam().constraints);
  CudaBackend cuda(1, 0, {.overlap_batch_add = true});
  EXPECT_TRUE(cuda.overlap_batch_add());
  expect_phases_tile_and_equal_the_cpu(cuda, s, inputs(s, 17), {.overlap_batch_add = true}, "overlap_batch_add");
}

// tails_beside_h = on (issue 24 item 3): the batch additions and tails on the lane's side
// streams while H runs, with and without overlap_batch_add between them: the same sums as the
// CPU backend, the three sub-stages in order, tiling no more than the call's wall time, and a
// peak within the estimate that counts H's scratch and theirs at once.
TEST_P(CudaBackendPhase, TailsBesideHGiveTheCpuBackendsSums) {
  REQUIRE_GPU();
  const auto& s = setup_for(GetParam().circuit, GetParam().constraints);
  const Inputs in = inputs(s, 19);
  for (bool overlap : {false, true}) {
    const CudaBackend::Options options{.overlap_batch_add = overlap, .tails_beside_h = true};
    CudaBackend cuda(1, 0, options);
    EXPECT_TRUE(cuda.tails_beside_h());
    expect_phases_tile_and_equal_the_cpu(cuda, s, in, options,
                                         overlap ? "tails_beside_h, overlap_batch_add" : "tails_beside_h");
  }
}

// batch_add_tables = pairs | quads (issue 24 item 3): the batch additions over the queries'
// group tables give the CPU backend's sums exactly, from the host's plans and, with
// sparse_products and prep_msm on the device, from the device's (the second phase, which finds
// the tables made); after the first phase the device holds at least the key with its tables
// (resident_key_bytes).
TEST_P(CudaBackendPhase, GroupTablesGiveTheCpuBackendsSums) {
  REQUIRE_GPU();
  const auto& s = setup_for(GetParam().circuit, GetParam().constraints);
  const Inputs in = inputs(s, 23);
  for (const unsigned group : {2u, 4u})
  for (bool tails_beside_h : {false, true}) {
    SCOPED_TRACE(std::string(tails_beside_h ? "tails_beside_h" : "batch additions after H") + ", groups of " +
                 std::to_string(group));
    CudaBackend cuda(1, 0, {.tails_beside_h = tails_beside_h, .batch_add_group = group});
    EXPECT_EQ(cuda.batch_add_group(), group);
    auto buffers = cuda.stage(0, in.part, "test");
    expect_same_sums(cuda.run_gpu_phase(0, s.pk, *buffers, in.plan, [](trace::Stage, std::int64_t) {}), in.want);
    buffers.reset();
    const std::uint64_t resident = cuda.vram_used(0);
    EXPECT_GE(resident, CudaBackend::resident_key_bytes(s.pk, false, group));
    const groth16::SynthesizedPartition part = groth16::defer_products(s.cs, in.part.witness);
    auto again = cuda.stage(0, part, "test");
    groth16::MsmPlan plan;
    cuda.run_prep_msm(0, s.pk, s.cs, *again, false, plan);
    expect_same_sums(cuda.run_gpu_phase(0, s.pk, *again, plan, [](trace::Stage, std::int64_t) {}), in.want);
  }
}

// sparse_products = gpu (issue 24): a partition whose a, b, c were left to the device
// (groth16::defer_products) gives exactly the CPU path's sums; the stage holds a, b, c and the
// witness, the phase frees the witness, the system's matrices stay resident (charged to the
// budget) and a second partition uploads them no more.
TEST_P(CudaBackendPhase, SparseProductsOnTheDeviceGiveTheCpuPathsSums) {
  REQUIRE_GPU();
  const auto& s = setup_for(GetParam().circuit, GetParam().constraints);
  const Inputs in = inputs(s, 13);
  const std::size_t n = in.part.a.size();
  const std::uint64_t witness_bytes = 32ull * in.part.witness.size();
  CudaBackend& cuda = backend();
  for (int round = 0; round < 2; ++round) {
    SCOPED_TRACE(round == 0 ? "first partition" : "second partition");
    const groth16::SynthesizedPartition part = groth16::defer_products(s.cs, in.part.witness);
    ASSERT_TRUE(part.a.empty() && part.products_on_device == &s.cs);
    const std::uint64_t used0 = cuda.vram_used(0);
    auto buffers = cuda.stage(0, part, "test");
    EXPECT_EQ(buffers->bytes(), 96ull * n + witness_bytes);
    EXPECT_EQ(cuda.resident_matrices_bytes(0), gpu::r1cs::DeviceMatrices::bytes_of(s.cs));
    // The second stage uploads no matrices (the first may replace another case's system).
    if (round == 1) EXPECT_EQ(cuda.vram_used(0), used0 + 96ull * n + witness_bytes);
    std::vector<std::string> substages;
    const auto got = cuda.run_gpu_phase(0, s.pk, *buffers, in.plan, [&](trace::Stage sub, std::int64_t) {
      substages.emplace_back(trace::stage_name(sub));
    });
    EXPECT_EQ(substages, (std::vector<std::string>{"ntt_h", "batch_add", "tail_msm"}));
    expect_same_sums(got, in.want);
    EXPECT_EQ(buffers->bytes(), 96ull * n) << "the witness is freed by the phase";
    const std::uint64_t after = cuda.vram_used(0);
    buffers.reset();
    EXPECT_EQ(cuda.vram_used(0), after - 96ull * n);
  }
}

// prep_msm = gpu (issue 24): the device's plan of a deferred partition gives exactly the CPU
// path's sums, its counts equal prep_msm's for every query, the B_G2 plan downloaded for the
// host (b_g2_msm = cpu) equals prep_msm's bit for bit, and the one kept on the device
// (b_g2_msm = gpu) gives the host's G2 sum; the G1 plans go with the staged buffers.
TEST_P(CudaBackendPhase, PrepMsmOnTheDeviceGivesTheCpuPathsPlanAndSums) {
  REQUIRE_GPU();
  const auto& s = setup_for(GetParam().circuit, GetParam().constraints);
  const Inputs in = inputs(s, 14);
  const std::size_t n = in.part.a.size();
  const auto want_g2 = groth16::b_g2_msm(s.pk, in.plan, pool()).to_affine();
  CudaBackend& cuda = backend();
  for (const bool b_g2_on_device : {false, true}) {
    SCOPED_TRACE(b_g2_on_device ? "b_g2_msm = gpu" : "b_g2_msm = cpu");
    const groth16::SynthesizedPartition part = groth16::defer_products(s.cs, in.part.witness);
    auto buffers = cuda.stage(0, part, "test");
    const std::uint64_t staged = buffers->bytes();
    groth16::MsmPlan plan;
    auto b_g2_plan = cuda.run_prep_msm(0, s.pk, s.cs, *buffers, b_g2_on_device, plan);
    EXPECT_EQ(b_g2_plan != nullptr, b_g2_on_device);
    EXPECT_GT(buffers->bytes(), staged) << "the G1 plans are held with the staged buffers";
    const std::pair<const groth16::QueryPlan<curve::G1Curve>*, const groth16::QueryPlan<curve::G1Curve>*> g1[3] = {
        {&plan.l, &in.plan.l}, {&plan.a, &in.plan.a}, {&plan.b_g1, &in.plan.b_g1}};
    for (const auto& [got, want] : g1) {
      EXPECT_EQ(got->zeros, want->zeros);
      EXPECT_EQ(got->num_ones, want->num_ones);
      EXPECT_TRUE(got->ones.empty() && got->tail_index.empty()) << "the G1 plans stay on the device";
    }
    EXPECT_EQ(plan.b_g2.zeros, in.plan.b_g2.zeros);
    EXPECT_EQ(plan.b_g2.num_ones, in.plan.b_g2.num_ones);
    if (!b_g2_on_device) {
      EXPECT_EQ(plan.b_g2.ones, in.plan.b_g2.ones);
      EXPECT_EQ(plan.b_g2.tail_index, in.plan.b_g2.tail_index);
      EXPECT_TRUE(plan.b_g2.tail_scalars == in.plan.b_g2.tail_scalars);
      groth16::gather_tail_bases(s.pk.b_g2, plan.b_g2);
      EXPECT_TRUE(plan.b_g2.tail_bases == in.plan.b_g2.tail_bases);
    }
    const auto got = cuda.run_gpu_phase(0, s.pk, *buffers, plan, [](trace::Stage, std::int64_t) {});
    expect_same_sums(got, in.want);
    const std::uint64_t after = cuda.vram_used(0);
    const std::uint64_t held = buffers->bytes();
    buffers.reset();
    EXPECT_EQ(cuda.vram_used(0), after - held) << "the plans are freed with the buffers";
    EXPECT_GE(held, 96ull * n);
    if (b_g2_on_device) {
      EXPECT_TRUE(cuda.run_b_g2_msm(0, s.pk, plan, b_g2_plan.get()).to_affine() == want_g2);
      const std::uint64_t before = cuda.vram_used(0);
      const std::uint64_t bytes = b_g2_plan->bytes();
      b_g2_plan.reset();
      EXPECT_EQ(cuda.vram_used(0), before - bytes);
    }
  }
}

// tails_beside_h with sparse_products and prep_msm on the device (the configuration the
// end-to-end runs use): the side work starts before the products, from the device's plans,
// and the sums equal the CPU path's.
TEST_P(CudaBackendPhase, TailsBesideHWithTheDevicesProductsAndPlansGiveTheCpuPathsSums) {
  REQUIRE_GPU();
  const auto& s = setup_for(GetParam().circuit, GetParam().constraints);
  const Inputs in = inputs(s, 15);
  for (bool overlap : {false, true}) {
    SCOPED_TRACE(overlap ? "overlap_batch_add" : "batch additions before the tails");
    CudaBackend cuda(1, 0, {.overlap_batch_add = overlap, .tails_beside_h = true});
    for (int rep = 0; rep < 2; ++rep) {  // the first uploads the key and the matrices
      const groth16::SynthesizedPartition part = groth16::defer_products(s.cs, in.part.witness);
      auto buffers = cuda.stage(0, part, "test");
      groth16::MsmPlan plan;
      cuda.run_prep_msm(0, s.pk, s.cs, *buffers, false, plan);
      expect_same_sums(cuda.run_gpu_phase(0, s.pk, *buffers, plan, [](trace::Stage, std::int64_t) {}), in.want);
    }
  }
}

// b_g2_msm = gpu (issue 24): the device's G2 query sum equals the host's groth16::b_g2_msm;
// the first call leaves the G2 query resident, a second uploads nothing, and the G2 MSM's
// scratch fits the room a partition has (partition_bytes).
TEST_P(CudaBackendPhase, BG2MsmOnTheDeviceEqualsTheHosts) {
  REQUIRE_GPU();
  const auto& s = setup_for(GetParam().circuit, GetParam().constraints);
  const Inputs in = inputs(s, 12);
  const auto want = groth16::b_g2_msm(s.pk, in.plan, pool()).to_affine();
  CudaBackend& cuda = backend();
  EXPECT_TRUE(cuda.run_b_g2_msm(0, s.pk, in.plan, nullptr).to_affine() == want) << "first call";
  const std::uint64_t used1 = cuda.vram_used(0);
  // This key's G1 queries (a case before may have left another key, which it replaced) and
  // its G2 query stay resident.
  EXPECT_GE(used1, CudaBackend::resident_key_bytes(s.pk) + 192ull * s.pk.b_g2.size());
  cuda.reset_vram_peak(0);
  EXPECT_TRUE(cuda.run_b_g2_msm(0, s.pk, in.plan, nullptr).to_affine() == want) << "second call";
  EXPECT_EQ(cuda.vram_used(0), used1) << "nothing uploaded again, no scratch kept";
  EXPECT_LE(cuda.vram_peak(0) - used1, CudaBackend::partition_bytes(in.part.a.size()));
  std::printf("b_g2 query %zu points: %zu ones, %zu tail; G2 scratch peak %llu B\n",
              s.pk.b_g2.size(), in.plan.b_g2.num_ones, in.plan.b_g2.tail_scalars.size(),
              static_cast<unsigned long long>(cuda.vram_peak(0) - used1));
}

// b_g2_msm = gpu keeps the G2 query beside the G1 queries: a budget that holds the G1 key and
// a partition but not the G2 query as well is refused before the phase's work, with a
// ConfigError naming b_g2_msm, the bytes and the budget; without the option the same budget
// keeps the key resident and the phase runs.
TEST_P(CudaBackendPhase, BG2OnTheDeviceCountsItsQueryAndRefusesAKeyThatWouldStream) {
  REQUIRE_GPU();
  const auto& s = setup_for(GetParam().circuit, GetParam().constraints);
  const Inputs in = inputs(s, 13);
  const std::size_t n = in.part.a.size();
  const std::uint64_t g1 = CudaBackend::resident_key_bytes(s.pk), g2 = 192ull * s.pk.b_g2.size();
  if (g2 < (16u << 10)) GTEST_SKIP() << "a G2 query of " << g2 << " B: below the allocator's rounding";
  // The NTT tables of this size on top: measured from a backend that has them.
  CudaBackend probe(1, 0);
  {
    auto buffers = probe.stage(0, in.part, "probe");
    probe.run_gpu_phase(0, s.pk, *buffers, in.plan, [](trace::Stage, std::int64_t) {});
  }
  const std::uint64_t tables = probe.vram_used(0) - g1;
  const std::uint64_t budget = g1 + CudaBackend::partition_bytes(n) + tables + g2 / 2;
  {
    CudaBackend cuda(1, budget, {.b_g2_on_device = true});
    EXPECT_TRUE(cuda.streams_key(0, s.pk, n));
    auto buffers = cuda.stage(0, in.part, "test");
    try {
      cuda.run_gpu_phase(0, s.pk, *buffers, in.plan, [](trace::Stage, std::int64_t) {});
      ADD_FAILURE() << "no ConfigError";
    } catch (const engine::ConfigError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("'b_g2_msm'"), std::string::npos) << what;
      EXPECT_NE(what.find(std::to_string(g1 + g2) + " bytes"), std::string::npos) << what;
      EXPECT_NE(what.find(std::to_string(cuda.vram_budget(0))), std::string::npos) << what;
    }
    EXPECT_EQ(cuda.vram_used(0), buffers->bytes()) << "nothing of the key uploaded";
  }
  CudaBackend cuda(1, budget);
  EXPECT_FALSE(cuda.streams_key(0, s.pk, n));
  auto buffers = cuda.stage(0, in.part, "test");
  expect_same_sums(cuda.run_gpu_phase(0, s.pk, *buffers, in.plan, [](trace::Stage, std::int64_t) {}), in.want);
}

// What one phase on a fresh backend leaves resident (the key's bases and the NTT tables) and
// the most it had above that (a, b, c and the largest scratch), from the allocator's peak.
struct Measured {
  std::size_t n = 0;
  std::uint64_t resident = 0, partition_peak = 0;
};

Measured measure_phase(const char* circuit_name, std::uint64_t constraints) {
  const auto& s = setup_for(circuit_name, constraints);
  const auto circuit = circuits::make_circuit(circuit_name, constraints, 0);
  groth16::SynthesizedPartition part = groth16::synthesize(s.cs, circuits::synthesize_witness(*circuit), pool());
  const groth16::MsmPlan plan = groth16::prep_msm(s.pk, s.cs, part.witness);
  CudaBackend cuda(1, 0);
  auto buffers = cuda.stage(0, part, "measure");
  cuda.run_gpu_phase(0, s.pk, *buffers, plan, [](trace::Stage, std::int64_t) {});
  buffers.reset();
  Measured m;
  m.n = part.a.size();
  m.resident = cuda.vram_used(0);
  m.partition_peak = cuda.vram_peak(0) - m.resident;
  return m;
}

TEST_P(CudaBackendPhase, PartitionEstimateCoversTheMeasuredPeak) {
  REQUIRE_GPU();
  const auto& s = setup_for(GetParam().circuit, GetParam().constraints);
  const Measured m = measure_phase(GetParam().circuit, GetParam().constraints);
  EXPECT_GE(m.resident, CudaBackend::resident_key_bytes(s.pk));
  EXPECT_GE(m.partition_peak, 96ull * m.n);
  EXPECT_LE(m.partition_peak, CudaBackend::partition_bytes(m.n))
      << "partition_vram_bytes(" << m.n << ") is below what the phase took";
  std::printf("[ measured ] %s %llu: n=%zu resident=%llu partition peak=%llu estimate=%llu\n",
              GetParam().circuit, static_cast<unsigned long long>(GetParam().constraints), m.n,
              static_cast<unsigned long long>(m.resident),
              static_cast<unsigned long long>(m.partition_peak),
              static_cast<unsigned long long>(CudaBackend::partition_bytes(m.n)));
}

TEST_P(CudaBackendPhase, StreamsTheKeyWhenItDoesNotFitAndStillEqualsTheCpu) {
  REQUIRE_GPU();
  const auto& s = setup_for(GetParam().circuit, GetParam().constraints);
  const std::uint64_t key = CudaBackend::resident_key_bytes(s.pk);
  if (key < (1u << 20)) GTEST_SKIP() << "a key of " << key << " B is smaller than the NTT tables";
  const Inputs in = inputs(s, 12);
  const auto& [part, plan, want] = in;
  const std::size_t n = part.a.size();
  // Room for a partition and the tables, not for the key beside them: the key streams.
  CudaBackend cuda(1, CudaBackend::partition_bytes(n) + key - 1);
  auto buffers = cuda.stage(0, part, "test");
  expect_same_sums(cuda.run_gpu_phase(0, s.pk, *buffers, plan, [](trace::Stage, std::int64_t) {}),
                   want);
  buffers.reset();
  EXPECT_LT(cuda.vram_used(0), key) << "the key must not have been made resident";
  EXPECT_LE(cuda.vram_peak(0), cuda.vram_budget(0));
}

// The three tail MSMs run at once on three streams where their first chunks together fit one
// chunk's bytes, else one after the other. A plan whose every base is in its query's tail,
// with random scalars, takes the second way and gives the CPU backend's sums (the first way is
// EqualsTheCpuBackendsSumsExactly's at porep_4096; smaller cases' few-point tails have
// scratch dominated by their buckets and run in turn too).
TEST_P(CudaBackendPhase, TailsAtOnceOrInTurnEqualTheCpu) {
  REQUIRE_GPU();
  const auto& s = setup_for(GetParam().circuit, GetParam().constraints);
  Inputs in = inputs(s, 13);
  const std::size_t n = in.part.a.size();
  auto rng = test::test_rng();
  const auto all_in_tail = [&](auto& q, const std::vector<curve::G1Affine>& bases) {
    q.ones.assign(q.ones.size(), 0);
    q.tail_bases = bases;
    q.tail_index.resize(bases.size());
    q.tail_scalars.resize(bases.size());
    for (std::size_t i = 0; i < bases.size(); ++i) {
      q.tail_index[i] = static_cast<std::uint32_t>(i);
      q.tail_scalars[i] = field::Fr::random(rng).to_canonical();
    }
    q.zeros = q.num_ones = 0;
  };
  all_in_tail(in.plan.l, s.pk.l);
  all_in_tail(in.plan.a, s.pk.a);
  all_in_tail(in.plan.b_g1, s.pk.b_g1);
  EXPECT_FALSE(CudaBackend::tails_together(n, s.pk.l.size(), s.pk.a.size(), s.pk.b_g1.size()));
  engine::CpuBackend cpu(1, 0, 0);
  auto cpu_buffers = cpu.stage(0, in.part, "test");
  const auto want = cpu.run_gpu_phase(0, s.pk, *cpu_buffers, in.plan, [](trace::Stage, std::int64_t) {});
  CudaBackend& cuda = backend();
  auto buffers = cuda.stage(0, in.part, "test");
  expect_same_sums(cuda.run_gpu_phase(0, s.pk, *buffers, in.plan, [](trace::Stage, std::int64_t) {}), want);
}

INSTANTIATE_TEST_SUITE_P(Circuits, CudaBackendPhase,
                         ::testing::Values(PhaseCase{"tiny", 0}, PhaseCase{"porep-like", 1 << 10},
                                           PhaseCase{"porep-like", 1 << 11},
                                           PhaseCase{"porep-like", 1 << 12}),
                         [](const auto& info) {
                           return std::string(info.param.circuit == std::string("tiny") ? "tiny" : "porep") +
                                  "_" + std::to_string(info.param.constraints);
                         });

TEST(CudaBackend, StageOverTheBudgetThrowsTheEnginesOutOfDeviceMemory) {
  REQUIRE_GPU();
  const auto& s = setup_for("porep-like", 1 << 10);
  const auto circuit = circuits::make_circuit("porep-like", 1 << 10, 3);
  const auto part = groth16::synthesize(s.cs, circuits::synthesize_witness(*circuit), pool());
  const std::size_t n = part.a.size();
  // Room for a and b, not c.
  CudaBackend cuda(1, 64ull * n + 1000);
  try {
    cuda.stage(0, part, "prestage");
    FAIL();
  } catch (const engine::OutOfDeviceMemory& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("in prestage"), std::string::npos) << msg;
    EXPECT_NE(msg.find(std::to_string(64ull * n + 1000)), std::string::npos) << msg;
    EXPECT_EQ(e.request(), 32ull * n);
  }
  EXPECT_EQ(cuda.vram_used(0), 0u) << "a and b must be freed when c does not fit";
}

// pin_uploads (issue 24): the vectors the partition's GPU work uploads are page-locked while
// the result lives — a, b, c with the products on the host, the witness with them on the
// device, and a host plan's bitmaps, tail positions and tail scalars; vectors under 1 MiB stay
// pageable; memory locked already is refused naming the key and the vector; once the result
// is gone the same memory locks again.
TEST(CudaBackend, PinUploadsLocksWhatTheGpuWorkUploadsUntilDestroyed) {
  REQUIRE_GPU();
  CudaBackend cuda(1, 0);
  groth16::SynthesizedPartition part;
  const std::size_t n = std::size_t{1} << 16;  // 2 MiB per vector
  part.a.assign(n, field::Fr::one());
  part.b.assign(n, field::Fr::one());
  part.c.assign(n, field::Fr::one());
  {
    const auto pin = cuda.pin_uploads(0, part, nullptr);
    EXPECT_EQ(pin->bytes(), 3 * n * 32);
    try {
      cuda.pin_uploads(0, part, nullptr);
      FAIL() << "memory locked twice";
    } catch (const gpu::CudaError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("cudaHostRegister(pin_uploads: a, 2097152 bytes)"), std::string::npos) << what;
    }
  }
  EXPECT_EQ(cuda.pin_uploads(0, part, nullptr)->bytes(), 3 * n * 32);  // unlocked again
  part.c.resize(1000);  // 32 000 bytes: left pageable
  EXPECT_EQ(cuda.pin_uploads(0, part, nullptr)->bytes(), 2 * n * 32);
  const r1cs::R1cs unused;  // pin_uploads reads only the witness of a deferred partition
  groth16::SynthesizedPartition deferred;
  deferred.witness.input.assign(3, field::Fr::one());  // 96 bytes: pageable
  deferred.witness.aux.assign(n, field::Fr::one());
  deferred.products_on_device = &unused;
  EXPECT_EQ(cuda.pin_uploads(0, deferred, nullptr)->bytes(), n * 32);

  // A host plan: L's tail scalars (2 MiB) and A's bitmap (1 MiB) lock, L's tail positions
  // (256 KiB) stay pageable; B_G2's tail scalars lock too (run_b_g2_msm uploads them).
  groth16::MsmPlan plan;
  plan.l.tail_scalars.resize(n);
  plan.l.tail_index.resize(n);
  plan.a.ones.resize(std::size_t{1} << 17);
  plan.b_g2.tail_scalars.resize(n);
  {
    const auto pin = cuda.pin_uploads(0, deferred, &plan);
    EXPECT_EQ(pin->bytes(), n * 32 + n * 32 + (std::size_t{1} << 20) + n * 32);
    try {
      cuda.pin_uploads(0, groth16::SynthesizedPartition{}, &plan);
      FAIL() << "plan locked twice";
    } catch (const gpu::CudaError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("cudaHostRegister(pin_uploads: l tail scalars, 2097152 bytes)"), std::string::npos)
          << what;
    }
  }
  EXPECT_EQ(cuda.pin_uploads(0, groth16::SynthesizedPartition{}, &plan)->bytes(),
            2 * n * 32 + (std::size_t{1} << 20));
}

// ---------------------------------------------------------------- the engine on the GPU

class CudaEngine : public ::testing::Test {
 protected:
  engine::EngineConfig config() {
    engine::EngineConfig c;
    c.backend = "cuda";
    c.circuit = "porep-like";
    c.constraints = 1024;
    c.partitions = 3;
    c.count = 2;
    c.concurrency = 2;
    c.gpu_workers_per_device = 2;
    c.synth_threads = 2;
    c.gpu_threads = 2;
    return c;
  }

  struct Outcome {
    engine::BatchResult result;
    std::string timeline;
    std::vector<test::Row> rows;
    std::unique_ptr<engine::Backend> backend;  // what stays resident after the run
  };

  Outcome run(const engine::EngineConfig& cfg) {
    const auto& s = setup_for(cfg.circuit, cfg.constraints);
    const fs::path dir = fs::temp_directory_path() /
                         ("prooflab_gpu_backend_" + std::to_string(::getpid()) + "_" + std::to_string(counter_++));
    fs::remove_all(dir);
    trace::RunDirectory run_dir(dir, {{"run_id", "test"}, {"config", cfg.to_json()}});
    trace::TimelineRecorder tl(run_dir.timeline_path());
    auto backend = harness::make_backend(cfg);
    EXPECT_EQ(backend->name(), "cuda");
    engine::EngineInputs in{cfg, *backend, s.pk, s.cs, tl, &run_dir, {}, nullptr};
    Outcome o{engine::run_batch(in), {}, {}, std::move(backend)};
    tl.close();
    run_dir.finish("complete", o.result.summary);
    std::ifstream t(run_dir.timeline_path());
    o.timeline.assign(std::istreambuf_iterator<char>(t), {});
    o.rows = test::read_timeline(run_dir.timeline_path());
    fs::remove_all(dir);
    return o;
  }

  // Each partition's TIMELINE events: (job, partition) -> event -> t_us (the last of a name).
  static std::map<std::pair<int, int>, std::map<std::string, std::int64_t>> events_by_partition(
      const std::vector<test::Row>& rows) {
    std::map<std::pair<int, int>, std::map<std::string, std::int64_t>> at;
    for (const auto& r : rows) at[{r.job, r.partition}][r.event] = r.t;
    return at;
  }

  static inline int counter_ = 0;
};

TEST_F(CudaEngine, EveryLockPolicyProvesAndVerifies) {
  REQUIRE_GPU();
  for (const auto policy : {engine::LockPolicy::kSingle, engine::LockPolicy::kTwoLock, engine::LockPolicy::kNone}) {
    SCOPED_TRACE(engine::to_string(policy));
    auto cfg = config();
    cfg.lock_policy = policy;
    const auto o = run(cfg);
    EXPECT_EQ(o.result.summary["completed"], 2);
    EXPECT_EQ(o.result.summary["failed"], 0);
    for (const auto& r : o.result.jobs) EXPECT_TRUE(r.ok) << r.reason;
    for (const char* ev : {",NTT_H,", ",BATCH_ADD,", ",TAIL_MSM,", ",PROOF_DONE,"})
      EXPECT_NE(o.timeline.find(ev), std::string::npos) << ev;
    if (policy == engine::LockPolicy::kTwoLock)
      EXPECT_NE(o.timeline.find("prestage="), std::string::npos);
  }
}

// sparse_products = gpu: under every lock policy every proof verifies (the products feed H,
// so a wrong element fails verification), the host never holds a, b, c (a partition's
// footprint is its witness) and the system's matrices stay resident after the run.
TEST_F(CudaEngine, SparseProductsOnTheGpuProveAndVerify) {
  REQUIRE_GPU();
  for (const auto policy : {engine::LockPolicy::kSingle, engine::LockPolicy::kTwoLock, engine::LockPolicy::kNone}) {
    SCOPED_TRACE(engine::to_string(policy));
    auto cfg = config();
    cfg.lock_policy = policy;
    cfg.set("sparse_products", "gpu");
    const auto o = run(cfg);
    EXPECT_EQ(o.result.summary["completed"], 2);
    EXPECT_EQ(o.result.summary["failed"], 0);
    for (const auto& r : o.result.jobs) EXPECT_TRUE(r.ok) << r.reason;
    const auto& s = setup_for(cfg.circuit, cfg.constraints);
    EXPECT_EQ(o.result.summary["partition_footprint_bytes"].get<std::uint64_t>(), 32ull * s.cs.num_variables());
    const auto& cuda = dynamic_cast<const CudaBackend&>(*o.backend);
    EXPECT_EQ(cuda.resident_matrices_bytes(0), gpu::r1cs::DeviceMatrices::bytes_of(s.cs));
  }
}

// prep_msm = gpu (with sparse_products = gpu), b_g2_msm cpu and gpu, under single and two_lock:
// every proof verifies (a wrong bit of a plan fails verification) and each partition's
// PREP_MSM_START..END lies inside its GPU_START..GPU_END, before NTT_H ends (the plan is made
// under the lock, before the phase frees the witness); with b_g2_msm = cpu the host's G2 MSM
// starts after PREP_MSM_END (it needs the downloaded B_G2 plan).
TEST_F(CudaEngine, PrepMsmOnTheGpuProvesAndVerifiesInsideTheGpuPhase) {
  REQUIRE_GPU();
  for (const char* g2 : {"cpu", "gpu"})
    for (const char* policy : {"single", "two_lock"}) {
      SCOPED_TRACE(std::string("b_g2_msm = ") + g2 + ", lock_policy = " + policy);
      auto cfg = config();
      cfg.set("sparse_products", "gpu");
      cfg.set("prep_msm", "gpu");
      cfg.set("b_g2_msm", g2);
      cfg.set("lock_policy", policy);
      const auto o = run(cfg);
      EXPECT_EQ(o.result.summary["completed"], 2);
      EXPECT_EQ(o.result.summary["failed"], 0);
      for (const auto& r : o.result.jobs) EXPECT_TRUE(r.ok) << r.reason;
      const auto at = events_by_partition(o.rows);
      int seen = 0;
      for (const auto& [key, ev] : at) {
        if (!ev.count("GPU_START")) continue;
        ++seen;
        SCOPED_TRACE("job " + std::to_string(key.first) + " partition " + std::to_string(key.second));
        ASSERT_TRUE(ev.count("PREP_MSM_START") && ev.count("PREP_MSM_END") && ev.count("NTT_H") &&
                    ev.count("B_G2_MSM_START"));
        EXPECT_LE(ev.at("GPU_START"), ev.at("PREP_MSM_START"));
        EXPECT_LE(ev.at("PREP_MSM_START"), ev.at("PREP_MSM_END"));
        EXPECT_LE(ev.at("PREP_MSM_END"), ev.at("NTT_H"));
        EXPECT_LE(ev.at("PREP_MSM_END"), ev.at("B_G2_MSM_START"));
        EXPECT_LE(ev.at("PREP_MSM_END"), ev.at("GPU_END"));
      }
      EXPECT_EQ(seen, 6);
    }
}

// pin_uploads = on, products on the host and on the device, under single and two_lock: every
// proof verifies, and each partition's HOST_PIN comes before its GPU_START and its HOST_UNPIN
// after its GPU_END, both with the bytes page-locked (at 2^16 a, b, c are 2 MiB each and the
// witness more than 1 MiB).
TEST_F(CudaEngine, PinUploadsProvesAndVerifiesAndUnlocksAfterTheGpuPhase) {
  REQUIRE_GPU();
  for (const char* products : {"cpu", "gpu"})
    for (const char* policy : {"single", "two_lock"}) {
      SCOPED_TRACE(std::string("sparse_products = ") + products + ", lock_policy = " + policy);
      auto cfg = config();
      cfg.constraints = 1 << 16;
      cfg.set("pin_uploads", "on");
      cfg.set("sparse_products", products);
      cfg.set("lock_policy", policy);
      const auto o = run(cfg);
      EXPECT_EQ(o.result.summary["completed"], 2);
      EXPECT_EQ(o.result.summary["failed"], 0);
      for (const auto& r : o.result.jobs) EXPECT_TRUE(r.ok) << r.reason;
      const auto at = events_by_partition(o.rows);
      int seen = 0;
      for (const auto& [key, ev] : at) {
        if (!ev.count("GPU_START")) continue;
        ++seen;
        ASSERT_TRUE(ev.count("HOST_PIN") && ev.count("HOST_UNPIN"));
        EXPECT_LE(ev.at("HOST_PIN"), ev.at("GPU_START"));
        EXPECT_GE(ev.at("HOST_UNPIN"), ev.at("GPU_END"));
      }
      EXPECT_EQ(seen, 6);
      int pinned_rows = 0;
      for (const auto& r : o.rows)
        if (r.event == "HOST_PIN" && r.detail.find("bytes=0;") == std::string::npos) ++pinned_rows;
      EXPECT_EQ(pinned_rows, 6) << "every partition locks at least one vector of 1 MiB or more";
    }
}

// b_g2_msm = gpu: every proof verifies, and each partition's B_G2_MSM_START..END lies inside
// its GPU_START..GPU_END (the G2 MSM runs under the lock, after TAIL_MSM).
TEST_F(CudaEngine, BG2MsmOnTheGpuProvesAndVerifiesInsideTheGpuPhase) {
  REQUIRE_GPU();
  auto cfg = config();
  cfg.set("b_g2_msm", "gpu");
  const auto o = run(cfg);
  EXPECT_EQ(o.result.summary["completed"], 2);
  EXPECT_EQ(o.result.summary["failed"], 0);
  for (const auto& r : o.result.jobs) EXPECT_TRUE(r.ok) << r.reason;
  const auto at = events_by_partition(o.rows);
  int seen = 0;
  for (const auto& [key, ev] : at) {
    if (!ev.count("GPU_START")) continue;
    ++seen;
    SCOPED_TRACE("job " + std::to_string(key.first) + " partition " + std::to_string(key.second));
    ASSERT_TRUE(ev.count("B_G2_MSM_START") && ev.count("B_G2_MSM_END") && ev.count("TAIL_MSM"));
    EXPECT_LE(ev.at("GPU_START"), ev.at("B_G2_MSM_START"));
    EXPECT_LE(ev.at("TAIL_MSM"), ev.at("B_G2_MSM_START"));
    EXPECT_LE(ev.at("B_G2_MSM_START"), ev.at("B_G2_MSM_END"));
    EXPECT_LE(ev.at("B_G2_MSM_END"), ev.at("GPU_END"));
  }
  EXPECT_EQ(seen, 6);
}

// Two GPUs (issue 22): the queue shared in (job, partition) order, one lock per device, the
// key resident on each device, every proof verified, and summary.json's per-device figures as
// the TIMELINE gives them. Needs two visible devices; skips saying how many there are.
TEST_F(CudaEngine, TwoDevicesShareTheQueueHoldALockEachAndVerify) {
  REQUIRE_GPU();
  const int visible = static_cast<int>(gpu::list_devices().size());
  if (visible < 2) GTEST_SKIP() << "needs 2 GPUs, " << visible << " visible";
  for (const auto policy : {engine::LockPolicy::kSingle, engine::LockPolicy::kTwoLock, engine::LockPolicy::kNone}) {
    SCOPED_TRACE(engine::to_string(policy));
    auto cfg = config();
    cfg.devices = 2;
    cfg.partitions = 4;
    cfg.count = 4;
    const auto o = run(cfg);
    EXPECT_EQ(o.result.summary["completed"], 4);
    for (const auto& r : o.result.jobs) EXPECT_TRUE(r.ok) << r.reason;
    const auto holders = test::max_lock_holders_per_device(o.rows);
    ASSERT_EQ(holders.size(), 2u) << "a device did no GPU phase";
    if (policy != engine::LockPolicy::kNone)
      for (const auto& [d, n] : holders) EXPECT_EQ(n, 1) << "device " << d;
    test::expect_queue_order(o.rows);
    test::expect_device_busy_matches_timeline(o.rows, o.result.summary, 2);
    const auto& s = setup_for(cfg.circuit, cfg.constraints);
    for (int d = 0; d < 2; ++d)
      EXPECT_GE(o.backend->vram_used(d), CudaBackend::resident_key_bytes(s.pk)) << "key not resident on device " << d;
  }
}

TEST_F(CudaEngine, TwoLockWithRoomForOneStagedPartitionTakesTheFallback) {
  REQUIRE_GPU();
  auto cfg = config();
  cfg.lock_policy = engine::LockPolicy::kTwoLock;
  const Measured m = measure_phase(cfg.circuit.c_str(), cfg.constraints);
  const std::uint64_t need = CudaBackend::partition_bytes(m.n);
  ASSERT_LT(m.partition_peak, need) << "the estimate must exceed the measured peak for this budget";
  // gw = 2: at most two partitions' a, b, c on the device and one phase's scratch. This budget
  // holds them (no out-of-memory), but a worker's pre-staging never fits while the other
  // worker holds its buffers (used + need > budget): the fallback path is taken.
  cfg.vram_limit = m.resident + 96ull * m.n + need - 1;
  const auto o = run(cfg);
  EXPECT_EQ(o.result.summary["failed"], 0);
  EXPECT_EQ(o.result.summary["completed"], 2);
  for (const auto& r : o.result.jobs) EXPECT_TRUE(r.ok) << r.reason;
  // Whether a pre-staging finds the other worker's buffers resident depends on timing: on the
  // H200 (2026-11-30) the phases were short enough that it never did in one run. What must
  // hold is the budget's guarantee above; which path ran is reported.
  const bool fallback = o.timeline.find("prestage=skip_vram") != std::string::npos;
  std::printf("[ measured ] two_lock with room for one staged partition: fallback path %s\n",
              fallback ? "taken" : "not taken in this run (timing)");
}

TEST_F(CudaEngine, TooLittleVramFailsJobsNamingStageAndBudgetAndTheBatchGoesOn) {
  REQUIRE_GPU();
  auto cfg = config();
  cfg.vram_limit = 4096;  // less than any partition's a
  const auto o = run(cfg);
  EXPECT_EQ(o.result.summary["completed"], 0);
  EXPECT_EQ(o.result.summary["failed"], 2);
  ASSERT_EQ(o.result.jobs.size(), 2u);
  for (const auto& r : o.result.jobs) {
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.reason.find("out of device memory"), std::string::npos) << r.reason;
    EXPECT_NE(r.reason.find("in gpu_phase"), std::string::npos) << r.reason;
    EXPECT_NE(r.reason.find("of 4096 in use"), std::string::npos) << r.reason;
  }
  EXPECT_NE(o.timeline.find(",JOB_FAILED,"), std::string::npos);

  // a, b, c, the key and the tables fit, the phase's scratch does not: the failure names the
  // scratch's stage and the budget.
  const Measured m = measure_phase(cfg.circuit.c_str(), cfg.constraints);
  cfg.vram_limit = m.resident + 96ull * m.n + 4096;
  const auto o2 = run(cfg);
  EXPECT_EQ(o2.result.summary["completed"], 0);
  EXPECT_EQ(o2.result.summary["failed"], 2);
  for (const auto& r : o2.result.jobs) {
    EXPECT_NE(r.reason.find("out of device memory"), std::string::npos) << r.reason;
    EXPECT_EQ(r.reason.find("in gpu_phase"), std::string::npos) << "staging fitted: " << r.reason;
    EXPECT_NE(r.reason.find("of " + std::to_string(cfg.vram_limit) + " in use"), std::string::npos)
        << r.reason;
  }
}

TEST(CudaBackend, SynchronizeAndTrimRunWhileAPhaseIsInFlight) {
  REQUIRE_GPU();
  const auto& s = setup_for("porep-like", 1 << 12);
  const auto circuit = circuits::make_circuit("porep-like", 1 << 12, 5);
  groth16::SynthesizedPartition part = groth16::synthesize(s.cs, circuits::synthesize_witness(*circuit), pool());
  const groth16::MsmPlan plan = groth16::prep_msm(s.pk, s.cs, part.witness);
  engine::CpuBackend cpu(1, 0, 0);
  auto cpu_buffers = cpu.stage(0, part, "test");
  const auto want = cpu.run_gpu_phase(0, s.pk, *cpu_buffers, plan, [](trace::Stage, std::int64_t) {});

  CudaBackend cuda(1, 0);
  std::atomic<bool> done{false};
  std::atomic<int> rounds{0};
  std::thread fallback([&] {
    while (!done.load()) {
      cuda.synchronize(0);
      cuda.trim_pool(0);
      ++rounds;
    }
  });
  std::vector<groth16::GpuPhaseSums> got;
  std::thread workers[2];
  std::mutex got_mu;
  for (auto& w : workers)
    w = std::thread([&] {
      for (int i = 0; i < 3; ++i) {
        auto buffers = cuda.stage(0, part, "gpu_phase");
        auto sums = cuda.run_gpu_phase(0, s.pk, *buffers, plan, [](trace::Stage, std::int64_t) {});
        std::lock_guard lock(got_mu);
        got.push_back(sums);
      }
    });
  for (auto& w : workers) w.join();
  done = true;
  fallback.join();
  EXPECT_GT(rounds.load(), 0);
  ASSERT_EQ(got.size(), 6u);
  for (const auto& g : got) {
    expect_same(g.h, want.h, "H");
    expect_same(g.l, want.l, "L");
    expect_same(g.a, want.a, "A");
    expect_same(g.b_g1, want.b_g1, "B_G1");
  }
  // No partition memory left behind: only the key and the tables stay.
  const Measured m = measure_phase("porep-like", 1 << 12);
  EXPECT_EQ(cuda.vram_used(0), m.resident);
}

}  // namespace
