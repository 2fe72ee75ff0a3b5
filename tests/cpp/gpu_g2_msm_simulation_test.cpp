// The device G2 MSM without a GPU: Fp2_32 (gpu/field/fp2_32.cuh) through the host emulation
// of the carry chains against core's Fp2, and the kernels' per-thread phases instantiated
// for G2 (msm_simulator.hpp) against core/msm's G2 MSM: sizes 1, 2, 100, 2^10, edge scalars
// (0, 1, r − 1), points at infinity, repeated and opposite points, tiny chunks, the batch
// addition. Its own binary (a separate TU from the G1 simulation: compile time).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "core/field/fp2.hpp"
#include "gpu/field/fp2_32.cuh"
#include "gpu/msm/msm_simulator.hpp"
#include "gpu_msm_test_util.hpp"
#include "test_util.hpp"

namespace {

using namespace prooflab;
using namespace prooflab::test::gpu_msm;
using field::Fp2;
using gpu::field::Fp2_32;

static_assert(sizeof(Fp2) == sizeof(Fp2_32));

Fp2_32 to_device(const Fp2& a) {
  Fp2_32 r;
  std::memcpy(&r, &a, sizeof r);
  return r;
}
Fp2 to_core(const Fp2_32& a) {
  Fp2 r;
  std::memcpy(&r, &a, sizeof r);
  return r;
}

TEST(GpuG2FieldHostEmulation, Fp2OpsMatchCore) {
  auto rng = test::test_rng();
  std::vector<Fp2> values = {Fp2::zero(), Fp2::one(), -Fp2::one(), {field::Fp::zero(), field::Fp::one()},
                             {-field::Fp::one(), -field::Fp::one()}};
  for (int i = 0; i < 200; ++i) values.push_back(Fp2::random(rng));
  for (std::size_t i = 0; i < values.size(); ++i) {
    const Fp2& a = values[i];
    const Fp2& b = values[(i * 7 + 3) % values.size()];
    const Fp2_32 da = to_device(a), db = to_device(b);
    EXPECT_EQ(to_core(da * db), a * b) << "mul " << test::hex(a) << " " << test::hex(b);
    EXPECT_EQ(to_core(da.sqr()), a.square()) << "sqr " << test::hex(a);
    EXPECT_EQ(to_core(da + db), a + b) << "add " << test::hex(a);
    EXPECT_EQ(to_core(da - db), a - b) << "sub " << test::hex(a);
    EXPECT_EQ(to_core(-da), -a) << "neg " << test::hex(a);
    EXPECT_EQ(to_core(da.dbl()), a.dbl()) << "dbl " << test::hex(a);
    EXPECT_EQ(da.is_zero(), a.is_zero());
    EXPECT_EQ(da == db, a == b);
  }
  EXPECT_EQ(to_core(Fp2_32::one()), Fp2::one());
  EXPECT_EQ(to_core(Fp2_32::zero()), Fp2::zero());
  // u² = −1: the non-residue is core's.
  const Fp2_32 u = to_device({field::Fp::zero(), field::Fp::one()});
  EXPECT_EQ(to_core(u * u), -Fp2::one());
}

TEST(GpuG2MsmSimulation, RandomInputsEverySize) {
  auto rng = test::test_rng();
  for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{100}, std::size_t{1} << 10}) {
    const auto bases = random_g2_bases(n, rng);
    const auto scalars = random_scalars(n, rng);
    const auto expected = cpu_g2_msm(bases, scalars);
    const auto got = gpu::msm::simulate_g2_msm(bases, scalars).to_affine();
    EXPECT_EQ(got, expected) << "n " << n << ", window " << gpu::msm::plan_window_bits(n) << "; got "
                             << describe(got) << ", want " << describe(expected) << "; "
                             << test::seed_note();
  }
}

TEST(GpuG2MsmSimulation, WindowsAndTinyChunks) {
  auto rng = test::test_rng();
  const std::size_t n = 20;
  const auto bases = random_g2_bases(n, rng);
  const auto scalars = random_scalars(n, rng);
  const auto expected = cpu_g2_msm(bases, scalars);
  for (unsigned c : {3u, 8u})
    for (unsigned chunk : {1u, 3u})
      EXPECT_EQ(gpu::msm::simulate_g2_msm(bases, scalars, {.window_bits = c, .entries_per_thread = chunk})
                    .to_affine(),
                expected)
          << "c " << c << " chunk " << chunk << "; " << test::seed_note();
}

TEST(GpuG2MsmSimulation, EdgeScalarsAndPoints) {
  auto rng = test::test_rng();
  const std::size_t n = 100;
  const auto bases = random_g2_bases(n, rng);
  struct Case {
    const char* name;
    std::vector<G2Affine> bases;
    std::vector<Scalar> scalars;
  };
  std::vector<Case> cases;
  cases.push_back({"all zero", bases, std::vector<Scalar>(n, small(0))});
  cases.push_back({"all one", bases, std::vector<Scalar>(n, small(1))});
  cases.push_back({"all r - 1", bases, std::vector<Scalar>(n, r_minus_1())});
  auto mixed = random_scalars(n, rng);
  for (std::size_t i = 0; i < n; i += 4) mixed[i] = small(0);
  for (std::size_t i = 1; i < n; i += 4) mixed[i] = small(1);
  for (std::size_t i = 2; i < n; i += 4) mixed[i] = r_minus_1();
  cases.push_back({"0, 1, r - 1 and random interleaved", bases, mixed});
  auto with_inf = bases;
  for (std::size_t i = 0; i < n; i += 3) with_inf[i] = G2Affine::infinity();
  cases.push_back({"points at infinity", with_inf, random_scalars(n, rng)});
  cases.push_back({"every point at infinity", std::vector<G2Affine>(n, G2Affine::infinity()),
                   random_scalars(n, rng)});
  cases.push_back({"repeated point, equal scalars", std::vector<G2Affine>(n, bases[1]),
                   std::vector<Scalar>(n, small(5))});
  auto opposite = bases;
  for (std::size_t i = 1; i < n; i += 2) opposite[i] = -opposite[i - 1];
  cases.push_back({"opposite pairs, equal scalars", opposite, std::vector<Scalar>(n, small(77))});
  for (const auto& c : cases) {
    const auto expected = cpu_g2_msm(c.bases, c.scalars);
    const auto got = gpu::msm::simulate_g2_msm(c.bases, c.scalars, {.window_bits = 5}).to_affine();
    EXPECT_EQ(got, expected) << c.name << "; got " << describe(got) << ", want " << describe(expected)
                             << "; " << test::seed_note();
  }
}

TEST(GpuG2MsmSimulation, IndexedSubsetAndSumSelected) {
  auto rng = test::test_rng();
  const std::size_t n = 130;
  auto bases = random_g2_bases(n, rng);
  bases[5] = G2Affine::infinity();
  std::vector<std::uint32_t> index(40);
  for (auto& i : index) i = static_cast<std::uint32_t>(rng() % n);  // repeats too
  std::vector<G2Affine> gathered;
  for (auto i : index) gathered.push_back(bases[i]);
  const auto scalars = random_scalars(index.size(), rng);
  EXPECT_EQ(gpu::msm::simulate_g2_msm(bases, scalars, {.window_bits = 6}, index).to_affine(),
            cpu_g2_msm(gathered, scalars))
      << test::seed_note();

  std::vector<std::uint64_t> bitmap((n + 63) / 64);
  for (auto& w : bitmap) w = rng();
  bitmap[0] |= 1u << 5;                             // the point at infinity selected
  bitmap.back() |= ~std::uint64_t{0} << (n % 64);  // bits past n must be ignored
  auto expected = G2Jacobian::infinity();
  for (std::size_t i = 0; i < n; ++i)
    if ((bitmap[i / 64] >> (i % 64)) & 1) expected = expected.add_mixed(bases[i]);
  EXPECT_EQ(gpu::msm::simulate_g2_sum_selected(bases, bitmap).to_affine(), expected.to_affine())
      << test::seed_note();
}

}  // namespace
