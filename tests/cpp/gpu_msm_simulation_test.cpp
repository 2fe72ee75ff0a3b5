// The device G1 MSM's per-thread phases run on the host (msm_simulator.hpp) against core/msm:
// digits, chunk boundaries and the fix-up (tiny chunks force runs across many chunks), the
// segmented bucket reduction, several window widths, the plan's shapes. No GPU needed; the
// same phases on the device are gpu_msm_test.cpp's.
#include <bit>
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <limits>
#include <random>
#include <set>
#include <stdexcept>
#include <vector>

#include "gpu/msm/msm_simulator.hpp"
#include "gpu/msm/plan.hpp"
#include "gpu_msm_test_util.hpp"
#include "test_util.hpp"

namespace {

using namespace prooflab;
using namespace prooflab::test::gpu_msm;

TEST(GpuMsmSimulation, PlanShapes) {
  for (std::size_t log_n : {0, 4, 10, 16, 20, 22, 24, 26}) {
    const auto p = gpu::msm::make_run_plan(std::size_t{1} << log_n, {});
    EXPECT_GE(p.digits.windows * p.digits.c, 256u) << "log n " << log_n;
    EXPECT_GE(std::size_t{p.segments} * p.segment, p.digits.buckets);  // the last segment may be short
    EXPECT_LT(std::size_t{p.segments - 1} * p.segment, p.digits.buckets);
    EXPECT_GE(p.chunks * p.chunk, p.entries);
    EXPECT_LT(p.digits.sentinel(), 1u << p.end_bit);
  }
  // The fastest measured (results/2026-12-07-msm-reduce-waves, H200 call 7 and H100 call 8):
  // 2^20 c = 16 (9.65 / 9.76 ms against 18's 9.79 / 9.97), 2^22 18 (29.57 / 29.82 against 19's
  // 29.81 / 30.20 and 16's 30.61 / 30.88: 18 and 19 tie on the model, the narrower wins),
  // 2^24 20 (99.68 / 100.24 against 19's 101.22 / 102.10).
  EXPECT_EQ(gpu::msm::plan_window_bits(1u << 20), 16u);
  EXPECT_EQ(gpu::msm::plan_window_bits(1u << 22), 18u);
  EXPECT_EQ(gpu::msm::plan_window_bits(1u << 24), 20u);
  EXPECT_THROW(gpu::msm::make_run_plan(8, {.window_bits = 1}), std::invalid_argument);
  EXPECT_THROW(gpu::msm::make_run_plan(8, {.window_bits = 25}), std::invalid_argument);
  // min_segment: the least power-of-two segment of a reduction with few buckets per target
  // thread, before the waves are filled (kReduceWaveOff: not filled).
  EXPECT_EQ(gpu::msm::make_run_plan(1u << 16, {.reduce_wave = gpu::msm::kReduceWaveOff}).segment, 32u);
  EXPECT_EQ(gpu::msm::make_run_plan(1u << 16, {.min_segment = 8, .reduce_wave = gpu::msm::kReduceWaveOff}).segment,
            8u);
  EXPECT_EQ(gpu::msm::make_run_plan(1u << 24, {.min_segment = 8}).segment,
            gpu::msm::make_run_plan(1u << 24, {}).segment);  // many buckets: the target decides
  EXPECT_THROW(gpu::msm::make_run_plan(8, {.min_segment = 12}), std::invalid_argument);
}

// The plain mode's window widths for a widest window of at most `c` bits, worked out here: the
// fewest windows of at most c bits that cover 256, W = ceil(256 / c), sharing the bits as evenly
// as they can, the wider ones first (9 × 20 + 4 × 19 for c = 20 and for 21).
std::vector<std::uint32_t> balanced_widths(std::uint32_t c) {
  const std::uint32_t windows = (256 + c - 1) / c;
  std::vector<std::uint32_t> widths(windows, 256 / windows);
  for (std::uint32_t w = 0; w < 256 % windows; ++w) ++widths[w];
  return widths;
}

// The buckets bucket set s's digits reach: the plain mode's 2^(width − 1) (a digit's magnitude
// is at most half its window's range), the fixed-base mode's one set all B.
std::uint32_t set_reach(const gpu::msm::RunPlan& p, std::uint32_t s) {
  return p.digits.folded ? p.digits.buckets : 1u << (balanced_widths(p.digits.c)[s] - 1);
}

// Σ_w d_w·2^position(w) as a 320-bit two's-complement number (five 64-bit limbs), the digits
// read back from make_digits' entries for one scalar (n = 1: entry w is window w's).
std::array<std::uint64_t, 5> digits_value(const gpu::msm::DigitPlan& plan, const Scalar& s) {
  std::vector<std::uint32_t> keys(plan.windows), vals(plan.windows);
  gpu::msm::make_digits(plan, reinterpret_cast<const std::uint32_t*>(&s), 0, 1, 1, keys.data(), vals.data());
  std::array<std::uint64_t, 5> acc{};
  for (std::uint32_t w = 0; w < plan.windows; ++w) {
    if (keys[w] == plan.sentinel()) continue;
    const std::uint64_t mag = keys[w] - w * plan.buckets + 1;
    EXPECT_LE(mag, plan.reach(w)) << "window " << w;
    const bool neg = (vals[w] & gpu::msm::kNegBit) != 0;
    // ±mag << position(w), limb by limb, carried or borrowed through the top limb.
    std::array<std::uint64_t, 5> term{};
    const std::uint32_t pos = plan.position(w), limb = pos / 64, shift = pos % 64;
    term[limb] = mag << shift;
    if (shift && limb + 1 < 5) term[limb + 1] = mag >> (64 - shift);
    unsigned __int128 carry = 0;
    for (int j = 0; j < 5; ++j) {
      const unsigned __int128 t = neg ? (unsigned __int128){acc[j]} - term[j] - carry
                                      : (unsigned __int128){acc[j]} + term[j] + carry;
      acc[j] = static_cast<std::uint64_t>(t);
      carry = neg ? ((t >> 64) ? 1 : 0) : (t >> 64);
    }
  }
  return acc;
}

// The plain mode's windows share the 256 bits evenly (balanced_widths), each at the position
// the windows below it end; every digit is within its window's reach (the top window's
// included: it never borrows, as s < 2^255), and the signed digits give the scalar back, for
// 2^255 − 1 (every digit borrows), r − 1, 0, 1 and random scalars, at every width 2..24. The
// fixed-base mode keeps W windows of c bits.
TEST(GpuMsmSimulation, BalancedWindowsGiveTheScalarBack) {
  auto rng = test::test_rng();
  std::vector<Scalar> scalars = {r_minus_1(), small(0), small(1),
                                 Scalar{~0ull, ~0ull, ~0ull, ~0ull >> 1}};
  for (int k = 0; k < 20; ++k) scalars.push_back(random_scalar(rng));
  for (std::uint32_t c = gpu::msm::kMinWindowBits; c <= gpu::msm::kMaxWindowBits; ++c) {
    const auto plan = gpu::msm::make_digit_plan(c);
    const auto widths = balanced_widths(c);
    ASSERT_EQ(plan.windows, widths.size()) << c;
    EXPECT_EQ(plan.c, widths[0]) << c;
    EXPECT_LE(plan.c, c);
    std::uint32_t pos = 0;
    for (std::uint32_t w = 0; w < plan.windows; ++w) {
      EXPECT_EQ(plan.width(w), widths[w]) << "c " << c << " window " << w;
      EXPECT_EQ(plan.position(w), pos) << "c " << c << " window " << w;
      EXPECT_EQ(plan.reach(w), 1u << (widths[w] - 1)) << "c " << c << " window " << w;
      pos += widths[w];
    }
    EXPECT_EQ(pos, 256u) << c;
    EXPECT_EQ(gpu::msm::make_digit_plan(plan.c).windows, plan.windows) << "a piece's replan, c " << c;
    for (const Scalar& s : scalars) {
      const auto got = digits_value(plan, s);
      EXPECT_EQ(got, (std::array<std::uint64_t, 5>{s[0], s[1], s[2], s[3], 0})) << "c " << c;
    }
    const auto folded = gpu::msm::make_digit_plan(c, true);
    EXPECT_EQ(folded.c, c);
    EXPECT_EQ(folded.windows, (256 + c - 1) / c);
    for (std::uint32_t w = 0; w < folded.windows; ++w) EXPECT_EQ(folded.position(w), w * c) << c;
  }
  EXPECT_EQ(gpu::msm::make_digit_plan(21).c, 20u);  // W = 13 either way
  EXPECT_EQ(gpu::msm::make_digit_plan(20).wide, 9u);
}

// Segments of 1..64 buckets (each segment's (lo − 1)·R term from lo = 0 up) give core's sum.
TEST(GpuMsmSimulation, ReductionSegmentsOfAnyLength) {
  auto rng = test::test_rng();
  const std::size_t n = 300;
  const auto bases = random_bases(n, rng);
  const auto scalars = random_scalars(n, rng);
  const auto expected = cpu_msm(bases, scalars);
  for (unsigned segment : {1u, 2u, 4u, 8u, 16u, 64u})
    for (unsigned c : {6u, 10u}) {
      const gpu::msm::MsmOptions opts{.window_bits = c, .min_segment = segment,
                                      .reduce_wave = gpu::msm::kReduceWaveOff};
      EXPECT_EQ(gpu::msm::make_run_plan(n, opts).segment, std::min(segment, 1u << (c - 1))) << segment;
      EXPECT_EQ(gpu::msm::simulate_msm(bases, scalars, opts).to_affine(), expected)
          << "segment " << segment << " c " << c << "; " << test::seed_note();
    }
}

// The reduction's segment, found here by scanning every length from `least` to B: the one whose
// threads' waves (part-full ones counted whole) times each thread's chain (2L additions and
// ~1.65 steps per bit of the offset lo) is least, ties to the fewer waves.
std::uint32_t scanned_segment(const gpu::msm::RunPlan& p, std::uint32_t least, std::size_t wave) {
  const std::uint32_t b = p.digits.buckets, sets = p.digits.bucket_sets();
  std::uint32_t best = 0;
  double best_cost = std::numeric_limits<double>::infinity();
  for (std::uint32_t l = std::min(least, b); l <= b; ++l) {
    std::size_t threads = 0;  // those with buckets to add
    for (std::uint32_t set = 0; set < sets; ++set) threads += (set_reach(p, set) + l - 1) / l;
    const double cost = double((threads + wave - 1) / wave) * (2.0 * l + 1.65 * (int(p.digits.c) - 2));
    if (cost <= best_cost) {  // a tie at a longer segment: fewer waves
      best = l;
      best_cost = cost;
    }
  }
  return best;
}

// At 2^24 (c = 20: 9 windows of 2^19 buckets and 4 narrow ones that reach 2^18) one wave of
// 33,792 threads at L = 171 (33,739 working) beats two at 86 and the power-of-two 128 (45,056:
// 1.33 waves); the fixed-base mode's one set of 2^21 (c = 22) takes one wave at 63; 2^16
// (c = 16) one wave at the least segment, 16.
TEST(GpuMsmSimulation, ReductionSegmentsMinimiseWavesTimesChain) {
  using gpu::msm::kDefaultReduceWave;
  const auto pow2 = gpu::msm::make_run_plan(1u << 24, {.reduce_wave = gpu::msm::kReduceWaveOff});
  EXPECT_EQ(pow2.segment, 128u);
  EXPECT_EQ(pow2.reduce_threads(), 9u * 4096 + 4u * 2048);
  const auto p = gpu::msm::make_run_plan(1u << 24, {});
  EXPECT_EQ(p.segment, scanned_segment(p, 16, kDefaultReduceWave));
  EXPECT_EQ(p.segment, 171u);
  EXPECT_EQ(p.segments, (p.digits.buckets + 170) / 171);
  EXPECT_EQ(p.reduce_threads(), 9u * 3067 + 4u * 1534);
  EXPECT_LE(p.reduce_threads(), kDefaultReduceWave);
  // A wave twice the kernel's (the bench's row for session 23's plan): two waves of 86.
  const auto two = gpu::msm::make_run_plan(1u << 24, {.reduce_wave = 2 * kDefaultReduceWave});
  EXPECT_EQ(two.segment, 86u);
  EXPECT_EQ(two.segment, scanned_segment(two, 16, 2 * kDefaultReduceWave));
  const auto folded = gpu::msm::make_run_plan(1u << 24, {.window_bits = 22}, 3, true);
  EXPECT_EQ(folded.digits.reach(0), folded.digits.buckets);
  EXPECT_EQ(folded.segment, 63u);
  EXPECT_EQ(folded.segment, scanned_segment(folded, 16, kDefaultReduceWave));
  const auto small = gpu::msm::make_run_plan(1u << 16, {});
  EXPECT_EQ(small.digits.c, 16u);
  EXPECT_EQ(small.segment, 16u);
  EXPECT_EQ(small.reduce_threads(), 16u * 2048);
  // 2^22 (c = 18: one window of 18 bits and 14 of 17): one wave at L = 32.
  const auto mid = gpu::msm::make_run_plan(1u << 22, {});
  EXPECT_EQ(mid.digits.c, 18u);
  EXPECT_EQ(mid.segment, scanned_segment(mid, 16, kDefaultReduceWave));
  EXPECT_EQ(mid.segment, 32u);
  EXPECT_EQ(mid.reduce_threads(), 1u * 4096 + 14u * 2048);
  // c = 19 there, asked for: one wave at L = 70.
  const auto c19 = gpu::msm::make_run_plan(1u << 22, {.window_bits = 19});
  EXPECT_EQ(c19.segment, scanned_segment(c19, 16, kDefaultReduceWave));
  EXPECT_EQ(c19.segment, 70u);
  EXPECT_EQ(c19.reduce_threads(), 4u * 3745 + 10u * 1873);
  // min_segment raises the least: 2^16 at 64 gets 64 (one wave, a quarter full).
  EXPECT_EQ(gpu::msm::make_run_plan(1u << 16, {.min_segment = 64}).segment, 64u);
}

// fill_accumulate_waves: at 2^24 (13·2^24 entries) the 2^18 chunks of 832 are 5.17 waves of
// 3 blocks of 128 on 132 SMs (50,688 threads); the nearest whole number, 5, takes chunks of 861.
// Below one wave (2^14 points) the chunk stays; a given entries_per_thread wins.
TEST(GpuMsmSimulation, AccumulationChunksFillWholeWaves) {
  const std::size_t entries = std::size_t{13} << 24, wave = 132 * 3 * 128;
  const auto plain = gpu::msm::make_run_plan(1u << 24, {.fill_accumulate_waves = false});
  EXPECT_EQ(plain.chunk, 832u);
  const auto filled = gpu::msm::make_run_plan(1u << 24, {});
  EXPECT_EQ(filled.chunk, (entries + 5 * wave - 1) / (5 * wave));
  EXPECT_EQ(filled.chunk, 861u);
  EXPECT_LE(filled.chunks, 5 * wave);
  EXPECT_GT(filled.chunks, 4 * wave);
  const auto small = gpu::msm::make_run_plan(1u << 14, {.fill_accumulate_waves = false});
  ASSERT_LE(small.chunks, wave);
  EXPECT_EQ(gpu::msm::make_run_plan(1u << 14, {}).chunk, small.chunk);
  // 2^16 points (16 windows): 2^16 chunks of 16 are 1.29 waves; one wave takes chunks of 21.
  EXPECT_EQ(gpu::msm::make_run_plan(1u << 16, {}).chunk,
            ((std::size_t{16} << 16) + wave - 1) / wave);
  EXPECT_EQ(gpu::msm::make_run_plan(1u << 24, {.entries_per_thread = 700}).chunk, 700u);
  // Two blocks per SM (accumulate_min_blocks 2): 33,792 threads a wave, 7.76 → 8 waves.
  const auto two = gpu::msm::make_run_plan(1u << 24, {.accumulate_min_blocks = 2});
  EXPECT_EQ(two.chunk, (entries + 8 * 33792 - 1) / (8 * 33792));
}

// Short waves force segments of other lengths (not powers of two, the last of a window short)
// over narrow windows that reach half the buckets (c = 6: 41 × 6 + 2 × 5 bits; 10: 22 × 10 +
// 4 × 9; 13: 16 × 13 + 4 × 12), with r − 1 and r − 2 (its low 32 bits set: carries up into the
// top window): the segment is the scan's (scanned_segment, from 1 up), and each sum is core's.
TEST(GpuMsmSimulation, ShortenedSegmentsAndTheTopWindowGiveCoresSum) {
  auto rng = test::test_rng();
  const std::size_t n = 200;
  const auto bases = random_bases(n, rng);
  auto scalars = random_scalars(n, rng);
  scalars[3] = r_minus_1();
  scalars[7] = r_minus_1();
  scalars[7][0] -= 1;
  const auto expected = cpu_msm(bases, scalars);
  struct Case {
    unsigned c, wave;
  };
  std::set<std::uint32_t> segments;
  for (const Case k : {Case{6, 5}, Case{10, 150}, Case{10, 300}, Case{13, 1000}, Case{13, 2000}}) {
    const gpu::msm::MsmOptions opts{.window_bits = k.c, .min_segment = 1, .reduce_wave = k.wave};
    const auto p = gpu::msm::make_run_plan(n, opts);
    for (std::uint32_t w = 0; w < p.digits.windows; ++w) EXPECT_EQ(p.digits.reach(w), set_reach(p, w)) << k.c;
    EXPECT_EQ(p.segment, scanned_segment(p, 1, k.wave)) << "c " << k.c << " wave " << k.wave;
    segments.insert(p.segment);
    EXPECT_EQ(gpu::msm::simulate_msm(bases, scalars, opts).to_affine(), expected)
        << "c " << k.c << " wave " << k.wave << " segment " << p.segment << "; " << test::seed_note();
  }
  std::size_t odd = 0;
  for (const auto l : segments) odd += std::has_single_bit(l) ? 0 : 1;
  EXPECT_GE(odd, 3u) << "the cases cover segments that are not powers of two";
}

// times(k), the reduction's (lo − 1)·R, starts at k's top bit: every bit length up to 32, the
// powers of two and their neighbours, 0 and random k, against core's k·P.
TEST(GpuMsmSimulation, TimesStartsAtTheTopBit) {
  auto rng = test::test_rng();
  const auto bases = random_bases(2, rng);
  std::vector<std::uint32_t> ks = {0, 0xffffffffu};
  for (unsigned b = 0; b < 32; ++b)
    for (std::uint32_t d : {0u, 1u, 0xffffffffu}) ks.push_back((1u << b) + d);
  for (int i = 0; i < 16; ++i) ks.push_back(static_cast<std::uint32_t>(rng()));
  for (const auto& base : bases) {
    const auto p = gpu::msm::Xyzz32::from_affine(*reinterpret_cast<const gpu::msm::Affine32*>(&base));
    for (std::uint32_t k : ks) {
      const auto got = p.times(k);
      const auto core = gpu::msm::xyzz_from_raw<G1Curve>(*reinterpret_cast<const gpu::msm::G1XyzzRaw*>(&got));
      EXPECT_EQ(core.to_affine(), cpu_msm({base}, {Scalar{k, 0, 0, 0}})) << "k " << k << "; " << test::seed_note();
    }
  }
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

// One scalar repeated by most of the points (real tails do this: the porep-like L tail has
// one bucket of ~26k points per window) makes runs of hundreds of one-entry chunks, which the
// fix-up walks a group of kFixupGroup chunks at a time over the group sums (pippenger.cuh 4a).
// Several repeat counts and chunk sizes put the runs' ends at different places in a group.
TEST(GpuMsmSimulation, HotBucketsSpanningFixupGroups) {
  auto rng = test::test_rng();
  const std::size_t n = 1100;
  const auto bases = random_bases(n, rng);
  const Scalar hot = random_scalar(rng);
  for (std::size_t repeats : {640u, 1023u})
    for (unsigned chunk : {1u, 3u}) {
      auto scalars = random_scalars(n, rng);
      for (std::size_t i = 0; i < repeats; ++i) scalars[(i * 7) % n] = hot;  // 7 ⟂ 1100: distinct
      for (std::size_t i = 0; i < 40; ++i) scalars[(i * 13 + 5) % n] = small(3);
      const gpu::msm::MsmOptions opts{.window_bits = 8, .entries_per_thread = chunk};
      ASSERT_GE(repeats / chunk, 4u * gpu::msm::kFixupGroup) << "the runs must cover whole groups";
      EXPECT_EQ(gpu::msm::simulate_msm(bases, scalars, opts).to_affine(), cpu_msm(bases, scalars))
          << repeats << " repeats, chunk " << chunk << "; " << test::seed_note();
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

// The fixed-base table: entry w·n + i is 2^(c·w)·P_i (here from core's doublings), made by
// the device's per-point step (doublings in XYZZ, one inversion per batch of windows: 31
// windows here, two batches), infinity kept; a point off the curve with y = 0 doubles to
// infinity (ZZ = 0), which must not spoil its batch's other entries.
TEST(GpuMsmSimulation, FixedBaseTableHoldsShiftedBases) {
  auto rng = test::test_rng();
  auto bases = random_bases(4, rng);
  bases.push_back(G1Affine::infinity());
  G1Affine off = bases[0];
  off.y = decltype(off.y)::zero();
  bases.push_back(off);
  const unsigned c = 8;  // W = 32 windows
  ASSERT_GT(gpu::msm::make_digit_plan(c, true).windows - 1, gpu::msm::kInversionBatch);
  const auto table = gpu::msm::simulate_fixed_base_table(bases, c);
  const std::size_t n = bases.size(), windows = gpu::msm::make_digit_plan(c, true).windows;
  ASSERT_EQ(table.size(), n * windows);
  for (std::size_t i = 0; i < n; ++i) {
    G1Jacobian p = G1Jacobian::from_affine(bases[i]);
    for (std::size_t w = 0; w < windows; ++w) {
      EXPECT_EQ(table[w * n + i], p.to_affine()) << "window " << w << " point " << i << "; " << test::seed_note();
      for (unsigned k = 0; k < c; ++k) p = p.dbl();
    }
  }
}

// core's 2^(c·w)-multiples of the bases, laid out as the fixed-base table (fast: no inversion
// on the emulated carry chain), for the MSM tests below.
std::vector<G1Affine> core_shifted_table(const std::vector<G1Affine>& bases, unsigned c) {
  const std::size_t n = bases.size(), windows = gpu::msm::make_digit_plan(c, true).windows;
  std::vector<G1Affine> table(n * windows);
  for (std::size_t i = 0; i < n; ++i) {
    G1Jacobian p = G1Jacobian::from_affine(bases[i]);
    for (std::size_t w = 0; w < windows; ++w) {
      table[w * n + i] = p.to_affine();
      for (unsigned k = 0; k < c; ++k) p = p.dbl();
    }
  }
  return table;
}

// The fixed-base mode (one bucket set for every window, values naming table entries) against
// core/msm: random and degenerate scalars, several widths, tiny chunks (runs across chunks),
// and one repeated scalar whose buckets span fix-up groups.
TEST(GpuMsmSimulation, FixedBaseMsmEqualsCore) {
  auto rng = test::test_rng();
  const std::size_t n = 300;
  const auto bases = random_bases(n, rng);
  std::vector<std::pair<const char*, std::vector<Scalar>>> cases;
  cases.push_back({"random", random_scalars(n, rng)});
  cases.push_back({"all zero", std::vector<Scalar>(n, small(0))});
  cases.push_back({"r - 1", std::vector<Scalar>(n, r_minus_1())});
  auto hot = random_scalars(n, rng);
  for (std::size_t i = 0; i < 200; ++i) hot[(i * 7) % n] = hot[0];
  for (std::size_t i = 0; i < 30; ++i) hot[(i * 11 + 3) % n] = small(1);
  cases.push_back({"one scalar repeated 200 times, ones", hot});
  for (unsigned c : {3u, 8u, 13u}) {
    const auto table = core_shifted_table(bases, c);
    for (const auto& [name, scalars] : cases) {
      const auto expected = cpu_msm(bases, scalars);
      for (unsigned chunk : {0u, 1u, 5u}) {
        const auto got = gpu::msm::simulate_fixed_base_msm(table, scalars, c, chunk).to_affine();
        EXPECT_EQ(got, expected) << name << ", c " << c << ", chunk " << chunk << "; got " << describe(got)
                                 << ", want " << describe(expected) << "; " << test::seed_note();
      }
    }
  }
}

// Host scalars in pieces (run_host_scalars): each piece runs digits, sort, accumulation and
// fix-up into the one set of buckets, its runs starting from the earlier pieces' sums. Against
// core/msm for plain, indexed and fixed-base calls, with one scalar repeated so that its
// buckets get entries in every piece and runs cross chunks and fix-up groups in each (chunk 1),
// and a piece count up to one point per piece. An unseeded later piece would overwrite the
// buckets the earlier ones wrote, which these sums catch.
TEST(GpuMsmSimulation, ScalarPiecesAddIntoTheSameBuckets) {
  auto rng = test::test_rng();
  const std::size_t n = 240;
  const auto bases = random_bases(n, rng);
  auto scalars = random_scalars(n, rng);
  for (std::size_t i = 0; i < 150; ++i) scalars[(i * 7) % n] = scalars[1];  // 7 ⟂ 240: distinct
  for (std::size_t i = 0; i < 20; ++i) scalars[(i * 11 + 3) % n] = small(1);
  const auto expected = cpu_msm(bases, scalars);
  for (unsigned pieces : {2u, 3u, 5u, 64u})
    for (unsigned chunk : {0u, 1u}) {
      const gpu::msm::MsmOptions opts{.window_bits = 7, .entries_per_thread = chunk, .scalar_pieces = pieces};
      EXPECT_EQ(gpu::msm::simulate_msm(bases, scalars, opts).to_affine(), expected)
          << pieces << " pieces, chunk " << chunk << "; " << test::seed_note();
    }
  std::vector<std::uint32_t> index(100);
  for (auto& i : index) i = static_cast<std::uint32_t>(rng() % n);
  std::vector<G1Affine> gathered;
  for (auto i : index) gathered.push_back(bases[i]);
  const std::vector<Scalar> some(scalars.begin(), scalars.begin() + index.size());
  EXPECT_EQ(gpu::msm::simulate_msm(bases, some, {.window_bits = 6, .entries_per_thread = 1, .scalar_pieces = 4},
                                   index)
                .to_affine(),
            cpu_msm(gathered, some))
      << "indexed; " << test::seed_note();
  const unsigned c = 9;
  const auto table = core_shifted_table(bases, c);
  for (unsigned pieces : {3u, 7u})
    EXPECT_EQ(gpu::msm::simulate_fixed_base_msm(table, scalars, c, 1, pieces).to_affine(), expected)
        << "fixed-base, " << pieces << " pieces; " << test::seed_note();
}

// The pieces cover [0, n) in order without gaps or empty pieces: planned (one below 2^21, else
// the first n/16 and the rest in two), asked for, and more pieces than points.
TEST(GpuMsmSimulation, ScalarPiecesPlan) {
  using gpu::msm::plan_scalar_pieces;
  const auto covers = [](std::size_t n, unsigned pieces) {
    const auto v = plan_scalar_pieces(n, pieces);
    std::size_t at = 0;
    for (const auto& p : v) {
      EXPECT_EQ(p.first, at) << n << " points, " << pieces << " pieces";
      EXPECT_GT(p.len, 0u) << n << " points, " << pieces << " pieces";
      at += p.len;
    }
    EXPECT_EQ(at, n) << n << " points, " << pieces << " pieces";
    return v;
  };
  EXPECT_EQ(covers((std::size_t{1} << 21) - 1, 0).size(), 1u);
  EXPECT_EQ(covers(std::size_t{1} << 21, 0).size(), 3u);
  const std::size_t big = std::size_t{1} << 24;
  const auto planned = covers(big, 0);
  ASSERT_EQ(planned.size(), 3u);
  EXPECT_EQ(planned[0].len, big / 16);
  EXPECT_EQ(planned[1].len, (big - big / 16) / 2);
  EXPECT_EQ(covers(big, 1).size(), 1u);
  // sort_ahead: growing pieces n/32, 4·n/32, then 27/32 in parts of at most 16/32 (two).
  const auto growing = plan_scalar_pieces(big, 0, true);
  ASSERT_EQ(growing.size(), 4u);
  EXPECT_EQ(growing[0].len, big / 32);
  EXPECT_EQ(growing[1].len, 4 * (big / 32));
  EXPECT_EQ(growing[2].len, (big - 5 * (big / 32)) / 2);
  EXPECT_EQ(growing[2].first + growing[2].len, growing[3].first);
  EXPECT_EQ(growing[3].first + growing[3].len, big);
  EXPECT_EQ(plan_scalar_pieces(big, 3, true).size(), 3u) << "a count asked for is kept";
  EXPECT_EQ(plan_scalar_pieces((std::size_t{1} << 21) - 1, 0, true).size(), 1u);
  for (std::size_t n : {std::size_t{1} << 21, (std::size_t{1} << 21) + 31, std::size_t{3} << 22}) {
    const auto v = plan_scalar_pieces(n, 0, true);
    std::size_t at = 0;
    for (std::size_t k = 0; k < v.size(); ++k) {
      EXPECT_EQ(v[k].first, at);
      EXPECT_GT(v[k].len, 0u);
      if (k > 0) EXPECT_LE(v[k].len, 4 * v[k - 1].len + 1) << n << " points, piece " << k;
      at += v[k].len;
    }
    EXPECT_EQ(at, n);
  }
  EXPECT_EQ(covers(5, 64).size(), 5u);
  EXPECT_EQ(covers(32, 32).size(), 32u);
  EXPECT_EQ(covers(100, 7).size(), 7u);
  EXPECT_TRUE(plan_scalar_pieces(0, 3).empty());
  EXPECT_THROW(plan_scalar_pieces(100, gpu::msm::kMaxScalarPieces + 1), std::invalid_argument);
}

TEST(GpuMsmSimulation, FixedBasePlan) {
  // One bucket set: the cost model (the reduction's waves × chain, measured) widens the window
  // past the W-set plan's (20 at 2^24, 18 at 2^22).
  EXPECT_EQ(gpu::msm::plan_fixed_base_window_bits(std::size_t{1} << 24), 22u);
  EXPECT_EQ(gpu::msm::plan_fixed_base_window_bits(std::size_t{1} << 22), 20u);
  const auto p = gpu::msm::make_run_plan(1000, {.window_bits = 10}, 3, true);
  EXPECT_EQ(p.bucket_count(), 512u);
  EXPECT_EQ(p.digits.sentinel(), 512u);
  EXPECT_EQ(p.reduce_threads(), p.segments);
  EXPECT_EQ(p.entries, 1000u * 26);
  EXPECT_THROW(gpu::msm::make_run_plan(1000, {}, 3, true), std::invalid_argument);  // no width
}

// The batch addition in equal shares of the selected bases: shares that start and end inside
// a word, cross empty and full words, and a last word whose bits past n are set (ignored).
TEST(GpuMsmSimulation, SumSelected) {
  auto rng = test::test_rng();
  const std::size_t n = 400;
  const auto bases = random_bases(n, rng);
  std::vector<std::uint64_t> bitmap((n + 63) / 64);
  for (auto& w : bitmap) w = rng();
  bitmap[1] = 0;                     // an empty word
  bitmap[2] = ~std::uint64_t{0};     // a full one
  bitmap[3] = std::uint64_t{1} << 63;  // one bit at its top
  bitmap.back() |= ~std::uint64_t{0} << (n % 64);  // bits past n must be ignored
  auto expected = G1Jacobian::infinity();
  for (std::size_t i = 0; i < n; ++i)
    if ((bitmap[i / 64] >> (i % 64)) & 1) expected = expected.add_mixed(bases[i]);
  for (std::uint32_t share : {0u, 1u, 5u, 63u, 64u, 65u, 1000u})
    EXPECT_EQ(gpu::msm::simulate_sum_selected(bases, bitmap, share).to_affine(), expected.to_affine())
        << "share " << share;
  const std::vector<std::uint64_t> none(bitmap.size(), 0);
  EXPECT_TRUE(gpu::msm::simulate_sum_selected(bases, none).to_affine().is_infinity());
}

// Bases whose groups are the special cases of a group table: a point twice (doubling), a point
// and its opposite (infinity), infinity beside points and twice (pairs 0–4; groups of 4: P, P,
// Q, −Q | ∞, R, S, ∞ | ∞, ∞, T, U); the rest random.
std::vector<G1Affine> group_test_bases(std::size_t n, std::mt19937_64& rng) {
  auto bases = random_bases(n, rng);
  bases[1] = bases[0];
  bases[3] = -bases[2];
  bases[4] = G1Affine::infinity();
  bases[7] = G1Affine::infinity();
  bases[8] = G1Affine::infinity();
  bases[9] = G1Affine::infinity();
  return bases;
}

// The combinations of a group: the masks of two or more of 4 bits, upwards, and their ranks.
TEST(GpuMsmSimulation, GroupCombinationsAreTheMasksOfTwoOrMoreBits) {
  std::vector<std::uint32_t> masks;
  for (std::uint32_t v = 0; v < 16; ++v)
    if (std::popcount(v) >= 2) masks.push_back(v);
  ASSERT_EQ(masks.size(), gpu::msm::group_entries(4));
  EXPECT_EQ(gpu::msm::group_entries(2), 1u);
  for (std::uint32_t r = 0; r < masks.size(); ++r) {
    EXPECT_EQ(gpu::msm::combination_mask(r), masks[r]) << "rank " << r;
    EXPECT_EQ(gpu::msm::combination_rank(masks[r]), r) << "mask " << masks[r];
  }
  EXPECT_EQ(gpu::msm::combination_mask(0), 3u) << "a pair's one entry is rank 0";
  EXPECT_EQ(gpu::msm::group_table_entries(1, 4), 0u);
  EXPECT_EQ(gpu::msm::group_table_entries(2, 4), 11u);
  EXPECT_EQ(gpu::msm::group_table_entries(9, 4), 33u);
  EXPECT_EQ(gpu::msm::group_table_entries(9, 2), 5u);
}

// A group table: entry q·E + r = the sum of group q's bases in combination r (core's addition),
// over more than one inversion batch per thread and a last, short batch; the special groups
// among them; a last group short of bases (those past n count as infinity).
TEST(GpuMsmSimulation, GroupTableHoldsGroupSums) {
  auto rng = test::test_rng();
  for (const std::uint32_t g : {2u, 4u}) {
    const std::uint32_t e = gpu::msm::group_entries(g);
    const std::size_t n = g * (3 * gpu::msm::kInversionBatch + 5) + g - 1;
    const auto bases = group_test_bases(n, rng);
    const auto table = gpu::msm::simulate_group_table(bases, g);
    ASSERT_EQ(table.size(), (n + g - 1) / g * e) << "group " << g;
    for (std::size_t i = 0; i < table.size(); ++i) {
      const std::size_t q = i / e;
      const std::uint32_t mask = gpu::msm::combination_mask(static_cast<std::uint32_t>(i % e));
      auto expected = G1Jacobian::infinity();
      for (std::uint32_t b = 0; b < g; ++b)
        if (((mask >> b) & 1) && g * q + b < n) expected = expected.add_mixed(bases[g * q + b]);
      EXPECT_EQ(table[i], expected.to_affine())
          << "group " << g << " entry " << i << " (mask " << mask << "); " << test::seed_note();
    }
  }
  const auto pairs = gpu::msm::simulate_group_table(group_test_bases(21, rng), 2);
  EXPECT_TRUE(pairs[1].is_infinity()) << "P + (−P)";
  EXPECT_TRUE(pairs[4].is_infinity()) << "infinity twice";
  const auto quads = gpu::msm::simulate_group_table(group_test_bases(21, rng), 4);
  EXPECT_TRUE(quads[gpu::msm::combination_rank(0b1100)].is_infinity()) << "Q + (−Q)";
  EXPECT_TRUE(quads[11 + gpu::msm::combination_rank(0b1001)].is_infinity()) << "infinity twice";
  EXPECT_TRUE(quads[22 + gpu::msm::combination_rank(0b0011)].is_infinity()) << "infinity twice";
}

// The batch addition over a group table equals the bit-by-bit sum: random words and the special
// ones of SumSelected (empty, full, one top bit, bits past n), groups with each combination
// over the special groups, every share size; nothing selected is infinity.
TEST(GpuMsmSimulation, SumSelectedGrouped) {
  auto rng = test::test_rng();
  const std::size_t n = 401;
  const auto bases = group_test_bases(n, rng);
  std::vector<std::uint64_t> bitmap((n + 63) / 64);
  for (auto& w : bitmap) w = rng();
  bitmap[0] = (bitmap[0] & ~std::uint64_t{0x3ff}) | 0x1e7;  // pairs 0–4: both, one, both, none, both
  // words 1, 2 and 3: empty, full, one top bit; word 4: every combination of 4 bits once
  bitmap[1] = 0;
  bitmap[2] = ~std::uint64_t{0};
  bitmap[3] = std::uint64_t{1} << 63;
  bitmap[4] = 0xfedcba9876543210ull;
  bitmap.back() |= ~std::uint64_t{0} << (n % 64);
  auto expected = G1Jacobian::infinity();
  for (std::size_t i = 0; i < n; ++i)
    if ((bitmap[i / 64] >> (i % 64)) & 1) expected = expected.add_mixed(bases[i]);
  const std::vector<std::uint64_t> none(bitmap.size(), 0);
  for (const std::uint32_t g : {2u, 4u}) {
    const auto table = gpu::msm::simulate_group_table(bases, g);
    for (std::uint32_t share : {0u, 1u, 5u, 31u, 32u, 33u, 1000u})
      EXPECT_EQ(gpu::msm::simulate_sum_selected_grouped(bases, table, g, bitmap, share).to_affine(),
                expected.to_affine())
          << "group " << g << " share " << share << "; " << test::seed_note();
    EXPECT_TRUE(gpu::msm::simulate_sum_selected_grouped(bases, table, g, none).to_affine().is_infinity());
  }
}

TEST(GpuMsmSimulation, BatchAddSharesCoverTheTotalInAtMost2To18Threads) {
  for (std::uint32_t total : {1u, 31u, 32u, 33u, 1000u, 7'760'000u, 1u << 30}) {
    const auto s = gpu::msm::batch_add_shares(total);
    EXPECT_LE(s.threads, std::size_t{1} << 18) << total;
    EXPECT_GE(s.threads * s.share, total) << total;
    EXPECT_LT((s.threads - 1) * std::uint64_t{s.share}, total) << total << ": a thread without a base";
    if (total >= 32 * (1u << 18)) EXPECT_EQ(s.threads, std::size_t{1} << 18) << total;
  }
  EXPECT_EQ(gpu::msm::batch_add_shares(0).threads, 0u);
}

}  // namespace
