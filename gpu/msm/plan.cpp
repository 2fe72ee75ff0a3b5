#include "gpu/msm/plan.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

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
// Per bucket (window × magnitude), in mixed additions of throughput: the reduction's two full
// additions and the accumulation's per-run work, net of what a wider window saves. Fitted to
// the H200's totals at 2^24 for c = 19 and c = 20 (2026-11-30: 134.0 and 127.4 ms).
constexpr double kBucketCost = 2.0;
// The fixed-base mode's one bucket set, measured (H100, 2026-12-05): reduce 12.25 ms for 2^23
// buckets against accumulate 74.27 ms for 11·2^24 mixed additions = 3.6 additions per bucket.
// It picks c = 22 at 2^24 and 20 at 2^22 (24 and 22 with kBucketCost): in the GPU phase 0.2 and
// 0.65 ms faster in both sittings (results/2026-12-07-coset-lagrange-h).
constexpr double kFoldedBucketCost = 3.6;
// One step of the fix-up's sequential walk (a full addition on one thread, latency-bound), in
// mixed additions of throughput: 1.8 ms for 146 steps at 1.8 G additions/s (H200, c = 19 at
// 2^24, whose top window has 8 bits), and 35 ms for 3,900 steps at c = 18.
constexpr double kFixupStepCost = 25000;

std::size_t chunk_for(std::size_t entries) {
  return std::max(kMinChunk, (entries + kTargetChunks - 1) / kTargetChunks);
}

// The window count W = ceil(256 / c) the cost model finds cheapest, as the plan's c. The model
// prices W uniform windows of c bits, as its costs were fitted and measured (c = 20 at 2^24, 16
// at 2^20 and 2^22); the plain mode then shares the 256 bits evenly over those W windows
// (DigitPlan). Priced balanced, its top window no longer crowds (c − 1 bits where c = 19 left
// 8), which would move 2^22 to c = 19 and 2^16 to 13 on the model alone: the bench's
// msm_variant rows at 2^22 measure c = 19 first.
unsigned cheapest_window_bits(std::size_t n, bool folded, unsigned max_bits) {
  unsigned best = kMinWindowBits;
  double best_cost = std::numeric_limits<double>::infinity();
  for (unsigned c = kMinWindowBits; c <= max_bits; ++c) {
    const std::size_t windows = (256 + c - 1) / c, sets = folded ? 1 : windows;
    // The top window holds bits [c·(W−1), 255): with few of them its digits crowd into a few
    // buckets, whose runs span many chunks and are finished by one fix-up thread each.
    const int top_bits = std::max(1, 255 - static_cast<int>(c * (windows - 1)));
    const double top_bucket = static_cast<double>(n) / std::ldexp(1.0, top_bits - 1);
    const double walk = top_bucket / static_cast<double>(chunk_for(n * windows));
    const double cost = static_cast<double>(n) * windows +
                        (folded ? kFoldedBucketCost : kBucketCost) * sets * std::ldexp(1.0, c - 1) +
                        kFixupStepCost * walk;
    if (cost < best_cost) {
      best_cost = cost;
      best = c;
    }
  }
  return make_digit_plan(best, folded).c;
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
void set_reduce_segment(RunPlan& r, std::uint32_t least, unsigned wave) {
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
