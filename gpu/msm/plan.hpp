// The shape of one device MSM: window width, digit entries, accumulation chunks, reduction
// segments, and the scratch they take. Shared by Msm::run, scratch_bytes and the simulator.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "gpu/msm/msm.hpp"
#include "gpu/msm/pippenger.cuh"

namespace prooflab::gpu::msm {

struct RunPlan {
  DigitPlan digits;
  std::size_t n = 0;
  std::size_t entries = 0;   // n·W
  std::size_t chunk = 0;     // K entries per accumulation thread
  std::size_t chunks = 0;    // ceil(entries / K)
  std::uint32_t segment = 0;   // L buckets per reduction thread
  std::uint32_t segments = 0;  // S = ceil(B / L) per window
  int end_bit = 0;           // key bits the sort looks at (the sentinel W·B included)
  unsigned accumulate_min_blocks = 0;

  // The reduction's output: S segment sums per set (a narrow window's past its reach infinity).
  std::size_t segment_sums() const { return std::size_t{digits.bucket_sets()} * segments; }
  // Segments over a narrow window's reach, B / 2.
  std::uint32_t narrow_segments() const { return (digits.buckets / 2 + segment - 1) / segment; }
  // Reduction threads: one per segment with buckets to add (ReduceArgs), wide sets first.
  std::size_t reduce_threads() const {
    const std::size_t wide = digits.wide_sets();
    return wide * segments + (digits.bucket_sets() - wide) * narrow_segments();
  }
  std::size_t fixup_groups() const { return (chunks + kFixupGroup - 1) / kFixupGroup; }
  std::size_t bucket_count() const { return std::size_t{digits.bucket_sets()} * digits.buckets; }
};

// Points one block adds per round of the window sums (pippenger_run.hpp sum_on_device). Many
// blocks per window keep each thread's chain of dependent full additions short: one block per
// window took 0.73 ms at 2^24 on an H100 (43 strided additions and a tree of 7 per thread).
constexpr std::size_t kSumPerBlock = 256;

constexpr unsigned kMinWindowBits = 2, kMaxWindowBits = 24, kMaxAutoWindowBits = 20;
constexpr unsigned kDefaultAccumulateMinBlocks = 3;
// G2's accumulation: two blocks of 128 threads per SM (255 registers, the most there are).
constexpr unsigned kG2DefaultAccumulateMinBlocks = 2;

// The accumulation's arguments for this plan over sorted (keys, vals); seeded: the buckets
// hold earlier pieces' sums (ChunkArgs::seeded).
template <class Bucket>
ChunkArgs<Bucket> chunk_args(const RunPlan& p, const std::uint32_t* keys, const std::uint32_t* vals,
                             const void* bases, const std::uint32_t* index, Bucket* buckets,
                             Bucket* heads, Bucket* tails, Bucket* group_sums, bool seeded = false) {
  ChunkArgs<Bucket> ca{};
  ca.keys = keys;
  ca.vals = vals;
  ca.bases = static_cast<const typename Bucket::Affine*>(bases);
  ca.index = index;
  ca.entries = p.entries;
  ca.chunk = static_cast<std::uint32_t>(p.chunk);
  ca.sentinel = p.digits.sentinel();
  ca.buckets = buckets;
  ca.heads = heads;
  ca.tails = tails;
  ca.group_sums = group_sums;
  ca.seeded = seeded;
  return ca;
}

// The reduction's arguments for this plan over `buckets` into `out` (segment_sums() points).
template <class Bucket>
ReduceArgs<Bucket> reduce_args(const RunPlan& p, const Bucket* buckets, Bucket* out) {
  return {buckets, p.segment, p.segments, p.narrow_segments(), p.digits, out};
}

// Points [first, first + len) of the scalars: one piece of a host-scalar call.
struct ScalarPiece {
  std::size_t first = 0, len = 0;
};
// Host scalars are uploaded whole below this many points: at 2^20 (a 0.6 ms copy) three pieces
// cost 0.1–0.2 ms more than they hid (results/2026-12-05-msm-pieces-fused-products-h200, H100);
// at 2^24 they hid 9 of its 9.7 ms.
constexpr std::size_t kMinPiecedPoints = std::size_t{1} << 21;
// The pieces n > 0 points' scalars go up in (MsmOptions::scalar_pieces; 0: planned: one below
// kMinPiecedPoints, else 3). The first is n/16, whose copy is the part left exposed, the others
// split the rest equally: each is copied while the previous one is worked on, and the work
// per point is ~10× its copy (H200 at 2^24: ~5.8 against ~0.6 ns), so the second may be ~8×
// the first. Never more pieces than points. Throws std::invalid_argument above kMaxScalarPieces.
// sort_ahead (MsmOptions::sort_ahead), planned, from kMinPiecedPoints: each piece is copied and
// sorted while the previous one accumulates (accumulation ~5.2 ns per point against ~0.6 + 0.4
// of copy and sort: up to ~5× may follow), so the pieces grow: n/32, 4·n/32, then the rest
// (27/32) in equal parts of at most 4× the second (two at 2^24).
constexpr std::size_t kPieceGrowth = 4;
std::vector<ScalarPiece> plan_scalar_pieces(std::size_t n, unsigned pieces, bool sort_ahead = false);

// The batch addition's equal shares of `total` selected bases: `threads` threads of `share`
// each (the last one's possibly short), up to 2^18 threads (~5 waves of 3 blocks of 128 per SM
// on an H200) of at least 32 bases.
struct BatchAddShares {
  std::size_t threads = 0;
  std::uint32_t share = 0;
};
BatchAddShares batch_add_shares(std::uint32_t total);

// Throws std::invalid_argument for n ≥ 2^31 / W entries or a window outside [2, 24].
// default_min_blocks: the accumulation's register cap when opts leave it 0 (G1 3, G2 2).
// folded: fixed-base mode over a table of 2^(c·w)-multiples (DigitPlan; opts.window_bits is
// then the table's c and must be set).
RunPlan make_run_plan(std::size_t n, const MsmOptions& opts,
                      unsigned default_min_blocks = kDefaultAccumulateMinBlocks, bool folded = false);

// The window width the fixed-base mode's cost model picks for n points: with one bucket set
// the reduction is ~W times cheaper, so wider windows (fewer windows, a smaller table) win.
unsigned plan_fixed_base_window_bits(std::size_t n);

// Device bytes one call for n points needs beyond bases and scalars, for buckets of
// `bucket_bytes` (G1 192, G2 384): scratch_bytes (msm.hpp) is this for G1.
// host_scalars: a host-scalar call (their device copy, n × 32 bytes, and the sort's buffers
// for the largest piece instead of all n).
std::size_t scratch_bytes_for(std::size_t n, const MsmOptions& opts, std::size_t bucket_bytes,
                              bool folded = false, bool host_scalars = false);

}  // namespace prooflab::gpu::msm
