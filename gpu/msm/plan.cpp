#include "gpu/msm/plan.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "gpu/msm/msm_kernels.hpp"

namespace prooflab::gpu::msm {
namespace {

// Accumulation threads to aim for: ~4 waves of 128-thread blocks, a few resident per SM.
constexpr std::size_t kTargetChunks = std::size_t{1} << 18;
constexpr std::size_t kMinChunk = 16;
static_assert(kDefaultReduceWave == kWaveSms * 2 * kernels::kThreads, "the reduction's 2 blocks per SM");
// The power-of-two segment (reduce_wave = kReduceWaveOff, the plan before session 24): ~2^16
// threads, and at least 32 buckets each (the (lo − 1)·R term costs ~2c point operations).
constexpr std::size_t kTargetReduceThreads = std::size_t{1} << 16;
constexpr std::uint32_t kMinSegment = 32;
// The least segment where the waves are filled (set_reduce_segment; MsmOptions::min_segment 0).
constexpr std::uint32_t kMinFilledSegment = 16;
// One step of the reduction's chain (set_reduce_segment: a full addition, or ~0.65 of one for
// a doubling, on every thread of a wave at once), in digit entries of the accumulation: 7.87 ms
// for one wave of 372 steps at 2^24 (c = 20, L = 171) = 21.2 µs a step, against 0.39–0.40 ns
// an entry (the accumulations of 2^22 and 2^24 at c = 16..20, plain and fixed-base alike).
// The same rate gives the other reductions measured in that call to within 5 %: 2^22 c = 16
// L = 16 1.16 ms (1.21), c = 18 L = 32 1.92 (1.91), c = 19 L = 70 3.56 (3.54), fixed-base c = 22
// L = 63 3.37 (3.33), c = 24 L = 249 11.3 (11.05) (H200, results/2026-12-07-msm-reduce-waves
// call 7). It replaces two per-bucket costs fitted to totals (2 plain, 3.6 fixed-base), which
// priced the reduction by its buckets where its time is its waves times its chain.
constexpr double kReduceStepCost = 53700;
// One step of the fix-up's sequential walk (a full addition on one thread, latency-bound), in
// mixed additions of throughput: 1.8 ms for 146 steps at 1.8 G additions/s (H200, c = 19 at
// 2^24, whose top window has 8 bits), and 35 ms for 3,900 steps at c = 18.
constexpr double kFixupStepCost = 25000;

std::size_t chunk_for(std::size_t entries) {
  return std::max(kMinChunk, (entries + kTargetChunks - 1) / kTargetChunks);
}

// Points the window sums take: each set's segments summed in rounds of kSumPerBlock
// (pippenger_run.hpp sum_on_device), each round's output kept until the next.
std::size_t window_sum_points(const RunPlan& p) {
  std::size_t points = 0;
  for (std::size_t count = p.segments;;) {
    count = (count + kSumPerBlock - 1) / kSumPerBlock;
    points += count * p.digits.bucket_sets();
    if (count == 1) return points;
  }
}

// The segment L ≥ least (any length up to B) and S = ceil(B / L) that minimise the waves of
// the reduction kernel times the chain of dependent steps each thread runs: its 2L full
// additions and the (lo − 1)·R term's double-and-add, ~1.65 steps per bit of lo (a doubling is
// ~0.65 of an addition, and the warp adds at every bit some lane has set). A wave takes about
// its threads' chain whether full or not (H100, 2^24: L = 128 in 1.47 waves 11.17 ms, 95 in two
// 9.31); so one wave of long segments beats two of short ones (L = 189 in one 8.52 ms against
// 95 in two 9.44; fixed-base c = 22: 63 in one 3.32 against 32 in two 4.46: call 4 of
// results/2026-12-07-msm-reduce-waves), and within one wave the shortest segment wins (2^22,
// c = 16: L = 16 1.26 ms against 32 1.66). For each count of waves, the least L whose working
// threads fit in them (they fall as L grows).
double set_reduce_segment(RunPlan& r, std::uint32_t least, unsigned wave) {
  const auto active = [&](std::uint32_t l) {
    r.segment = l;
    r.segments = (r.digits.buckets + l - 1) / l;
    return r.reduce_threads();
  };
  const std::uint32_t most = r.digits.buckets;
  least = std::min(least, most);
  const double offset_steps = 1.65 * std::max(0, static_cast<int>(r.digits.c) - 2);
  std::uint32_t best = most;
  double best_cost = std::numeric_limits<double>::infinity();
  for (std::size_t waves = 1;; ++waves) {
    const std::size_t room = waves * wave;
    std::uint32_t lo = least, hi = most;
    while (lo < hi) {
      const std::uint32_t mid = lo + (hi - lo) / 2;
      if (active(mid) <= room) hi = mid;
      else lo = mid + 1;
    }
    const std::size_t taken = (active(hi) + wave - 1) / wave;  // ≤ waves (more where even B is too short)
    const double cost = static_cast<double>(taken) * (2.0 * hi + offset_steps);
    if (cost < best_cost) {
      best_cost = cost;
      best = hi;
    }
    if (hi == least) break;  // more waves cannot shorten the segment
  }
  active(best);
  return best_cost;
}

// The widest window the cost model finds cheapest for n points: n·W digit entries to sort and
// accumulate, the reduction's waves × chain of the segment the plan would take (kReduceStepCost),
// and the top window's fix-up walk. Costs within kWindowCostTie of the least are ties, won by
// the narrowest window (fewer buckets, less scratch): at 2^22 c = 18 and 19 are 0.05 % apart on
// the model and 18 was 0.8 % and 1.3 % faster (H200 call 7, H100 call 8: 29.57 / 29.82 ms
// against 29.81 / 30.20; 1.41 GB of scratch against 1.67). On the H200 it picks what was
// measured fastest at 2^20 (c = 16), 2^22 (18) and 2^24 (20), fixed-base 20 at 2^22 and 22 at
// 2^24 (results/2026-12-07-msm-reduce-waves).
constexpr double kWindowCostTie = 0.01;

unsigned cheapest_window_bits(std::size_t n, bool folded, unsigned max_bits) {
  std::vector<std::pair<unsigned, double>> costs;  // (the plan's c, its cost), c rising
  for (unsigned c = kMinWindowBits; c <= max_bits; ++c) {
    RunPlan r;
    r.digits = make_digit_plan(c, folded);
    const DigitPlan& p = r.digits;
    // The top window holds bits [position(W−1), 255): with few of them its digits crowd into a
    // few buckets, whose runs span many chunks and are finished by one fix-up thread each.
    const int top_bits = std::max(1, 255 - static_cast<int>(p.position(p.windows - 1)));
    const double top_bucket = static_cast<double>(n) / std::ldexp(1.0, top_bits - 1);
    const double walk = top_bucket / static_cast<double>(chunk_for(n * p.windows));
    const double steps = set_reduce_segment(r, kMinFilledSegment, kDefaultReduceWave);
    costs.emplace_back(p.c, static_cast<double>(n) * p.windows + kReduceStepCost * steps + kFixupStepCost * walk);
  }
  double least = std::numeric_limits<double>::infinity();
  for (const auto& [c, cost] : costs) least = std::min(least, cost);
  const auto pick = std::find_if(costs.begin(), costs.end(),
                                 [&](const auto& e) { return e.second <= least * (1 + kWindowCostTie); });
  return pick->first;  // the least itself at the latest
}

}  // namespace

unsigned plan_window_bits(std::size_t n) { return cheapest_window_bits(n, false, kMaxAutoWindowBits); }

unsigned plan_fixed_base_window_bits(std::size_t n) { return cheapest_window_bits(n, true, kMaxWindowBits); }

RunPlan make_run_plan(std::size_t n, const MsmOptions& opts, unsigned default_min_blocks, bool folded) {
  if (folded && opts.window_bits == 0)
    throw std::invalid_argument("gpu msm: the fixed-base mode needs the table's window_bits");
  const unsigned c = opts.window_bits ? opts.window_bits : plan_window_bits(n);
  if (c < kMinWindowBits || c > kMaxWindowBits)
    throw std::invalid_argument("gpu msm: window_bits " + std::to_string(c) + " outside [" +
                                std::to_string(kMinWindowBits) + ", " +
                                std::to_string(kMaxWindowBits) + "]");
  RunPlan r;
  r.digits = make_digit_plan(c, folded);
  r.n = n;
  r.entries = n * r.digits.windows;
  if (n >= (std::size_t{1} << 31) || r.entries >= (std::size_t{1} << 31))
    throw std::invalid_argument("gpu msm: " + std::to_string(n) + " points × " +
                                std::to_string(r.digits.windows) +
                                " windows exceed the sort's 2^31 entries");
  r.chunk = opts.entries_per_thread ? opts.entries_per_thread : chunk_for(r.entries);
  if (opts.fill_accumulate_waves && !opts.entries_per_thread) {
    // The nearest whole number of waves of the accumulation kernel at its register cap.
    const std::size_t wave = std::size_t{kWaveSms} * kernels::kThreads *
                             (opts.accumulate_min_blocks ? opts.accumulate_min_blocks : default_min_blocks);
    const std::size_t chunks = (r.entries + r.chunk - 1) / r.chunk;
    if (chunks > wave) {
      const std::size_t waves = (chunks + wave / 2) / wave;
      r.chunk = std::max(kMinChunk, (r.entries + waves * wave - 1) / (waves * wave));
    }
  }
  r.chunks = (r.entries + r.chunk - 1) / r.chunk;
  const std::size_t want =
      (r.bucket_count() + kTargetReduceThreads - 1) / kTargetReduceThreads;
  if (opts.min_segment && !std::has_single_bit(opts.min_segment))
    throw std::invalid_argument("gpu msm: min_segment " + std::to_string(opts.min_segment) +
                                " is not a power of two");
  if (opts.reduce_wave == kReduceWaveOff) {
    const std::size_t least = opts.min_segment ? opts.min_segment : kMinSegment;
    r.segment = static_cast<std::uint32_t>(
        std::min<std::size_t>(r.digits.buckets, std::max<std::size_t>(least, std::bit_ceil(want))));
    r.segments = (r.digits.buckets + r.segment - 1) / r.segment;
  } else {
    set_reduce_segment(r, opts.min_segment ? opts.min_segment : kMinFilledSegment,
                       opts.reduce_wave ? opts.reduce_wave : kDefaultReduceWave);
  }
  r.end_bit = std::bit_width(r.digits.sentinel());
  r.accumulate_min_blocks =
      opts.accumulate_min_blocks ? opts.accumulate_min_blocks : default_min_blocks;
  return r;
}

BatchAddShares batch_add_shares(std::uint32_t total) {
  constexpr std::size_t kMaxThreads = std::size_t{1} << 18, kMinShare = 32;
  BatchAddShares s;
  if (total == 0) return s;
  s.threads = std::min(kMaxThreads, (total + kMinShare - 1) / kMinShare);
  s.share = static_cast<std::uint32_t>((total + s.threads - 1) / s.threads);
  s.threads = (total + s.share - 1) / s.share;  // no thread without a base
  return s;
}

std::vector<ScalarPiece> plan_scalar_pieces(std::size_t n, unsigned pieces, bool sort_ahead) {
  if (pieces > kMaxScalarPieces)
    throw std::invalid_argument("gpu msm: scalar_pieces " + std::to_string(pieces) + " is above " +
                                std::to_string(kMaxScalarPieces));
  if (n == 0) return {};
  if (sort_ahead && pieces == 0 && n >= kMinPiecedPoints) {
    // Growing pieces: n/32, then 4× that, then the rest in equal parts of at most 4× the last.
    std::vector<ScalarPiece> out = {{0, n / 32}, {n / 32, n / 32 * kPieceGrowth}};
    const std::size_t at = out[1].first + out[1].len, rest = n - at, most = out[1].len * kPieceGrowth;
    const std::size_t parts = (rest + most - 1) / most;
    for (std::size_t k = 0, first = at; k < parts; ++k) {
      const std::size_t len = rest / parts + (k < rest % parts ? 1 : 0);
      out.push_back({first, len});
      first += len;
    }
    return out;
  }
  std::size_t count = pieces ? pieces : (n < kMinPiecedPoints ? 1 : 3);
  count = std::min(count, n);
  std::vector<ScalarPiece> out;
  if (count == 1) return {{0, n}};
  const std::size_t first = std::max<std::size_t>(1, std::min(n / 16, n - (count - 1)));
  out.push_back({0, first});
  // The rest, n − first ≥ count − 1 points, in count − 1 parts.
  const std::size_t rest = n - first, parts = count - 1;
  for (std::size_t k = 0, at = first; k < parts; ++k) {
    const std::size_t len = rest / parts + (k < rest % parts ? 1 : 0);
    out.push_back({at, len});
    at += len;
  }
  return out;
}

std::size_t scratch_bytes(std::size_t n, const MsmOptions& opts) {
  return scratch_bytes_for(n, opts, sizeof(Xyzz32));
}

std::size_t fixed_base_scratch_bytes(std::size_t n) {
  if (n == 0) return 0;
  return scratch_bytes_for(n, {.window_bits = plan_fixed_base_window_bits(n)}, sizeof(Xyzz32), true);
}

std::size_t scratch_bytes_for(std::size_t n, const MsmOptions& opts, std::size_t bucket_bytes, bool folded,
                              bool host_scalars) {
  if (n == 0) return 0;
  const auto p = make_run_plan(n, opts, kDefaultAccumulateMinBlocks, folded);
  // The sort and the accumulation's heads and tails are per piece: the largest one's.
  std::size_t largest = n, sort_sets = 1;
  if (host_scalars) {
    const auto pieces = plan_scalar_pieces(n, opts.scalar_pieces, opts.sort_ahead);
    largest = 0;
    for (const auto& piece : pieces) largest = std::max(largest, piece.len);
    if (opts.sort_ahead && pieces.size() > 1) sort_sets = 2;  // run_pippenger's second set
  }
  MsmOptions po = opts;
  po.window_bits = p.digits.c;
  const auto q = make_run_plan(largest, po, kDefaultAccumulateMinBlocks, folded);
  const std::size_t point = bucket_bytes;
  return (host_scalars ? n * 32 : 0) +
         sort_sets * (4 * q.entries * sizeof(std::uint32_t) + kernels::sort_temp_bytes(q.entries, q.end_bit)) +
         (p.bucket_count() + 2 * q.chunks + q.fixup_groups() + p.segment_sums() + window_sum_points(p)) * point;
}

}  // namespace prooflab::gpu::msm
