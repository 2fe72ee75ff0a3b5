// Pippenger's bucket method, generic over the group (G1, G2), in named steps:
//   glv_split, LambdaMap   (msm.cpp, glv.hpp) 128-bit halves over the bases and their λ·P
//   best_plan              (windows.hpp) window widths from the cost model
//   sort_into_buckets      per window: signed digits, counting sort of the points by |digit|
//   sum_segments           per window: every bucket's points summed by batch-affine trees
//   reduce_buckets         per window: Σ b·B_b (bucket_reduce.hpp)
//   pippenger              the loop over windows, combined by Horner: acc = 2^c·acc + S_w
// Windows run one after another with the whole pool inside each step, so every thread is
// busy whatever the number of windows.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "core/curve/jacobian.hpp"
#include "core/curve/xyzz.hpp"
#include "core/field/fr.hpp"
#include "core/msm/bucket_reduce.hpp"
#include "core/msm/buffer.hpp"
#include "core/msm/glv.hpp"
#include "core/msm/segment_sum.hpp"
#include "core/msm/windows.hpp"
#include "core/parallel/thread_pool.hpp"

namespace prooflab::msm {

namespace detail {

inline constexpr std::uint32_t kNegBit = std::uint32_t{1} << 31;

// Entry (index | sign) to point: the bases, then (with GLV) their images λ·P.
template <class Curve>
struct BaseFetch {
  using Point = curve::Affine<Curve>;
  const Point* bases;
  const Point* lambda_bases;
  std::uint32_t n;
  const Point* point(std::uint32_t e) const {
    const std::uint32_t i = e & ~kNegBit;
    return i < n ? bases + i : lambda_bases + (i - n);
  }
  static bool negated(std::uint32_t e) { return e & kNegBit; }
  Point value(std::uint32_t e) const { return negated(e) ? -*point(e) : *point(e); }
  void prefetch(std::uint32_t e) const { prefetch_point(point(e)); }
};

// Blocks of points for per-thread histograms.
struct Blocks {
  std::size_t m, count;
  std::size_t begin(std::size_t b) const { return m * b / count; }
};

// A window's points sorted by bucket: entries[offsets[s] .. offsets[s+1]) hold the points
// (index | sign) of bucket ids[s]; only non-empty buckets appear.
struct BucketLists {
  RawBuffer<std::uint32_t> entries;
  std::vector<std::size_t> offsets;
  std::vector<std::uint32_t> ids;
  RawBuffer<std::uint32_t> hist;  // blocks × (buckets + 1) counters, then write cursors
  RawBuffer<std::size_t> start;   // per bucket: size, then first entry, then end
};

template <std::size_t L>
void sort_into_buckets(std::span<const std::array<std::uint64_t, L>> scalars, const Window& w,
                       parallel::ThreadPool& pool, BucketLists& out) {
  const std::size_t m = scalars.size();
  const std::size_t buckets = w.buckets() + 1;  // index 0 unused
  const Blocks blocks{m, std::clamp<std::size_t>(m / 4096, 1, pool.size())};
  out.hist.resize_discard(blocks.count * buckets);
  pool.parallel_for(blocks.count, 1, [&](std::size_t b0, std::size_t b1) {
    for (std::size_t b = b0; b < b1; ++b) {
      std::uint32_t* h = out.hist.data() + b * buckets;
      std::fill(h, h + buckets, 0);
      for (std::size_t i = blocks.begin(b); i < blocks.begin(b + 1); ++i) {
        const std::int64_t d = window_digit(scalars[i], w);
        ++h[d < 0 ? -d : d];
      }
    }
  });
  // Bucket sizes (over the blocks), their prefix sums, then per-block write cursors
  // (bucket-major, block-minor); the O(blocks × buckets) passes run on the pool.
  auto& start = out.start;
  start.resize_discard(buckets);
  constexpr std::size_t kBucketGrain = 4096;
  pool.parallel_for(buckets, kBucketGrain, [&](std::size_t k0, std::size_t k1) {
    for (std::size_t k = k0; k < k1; ++k) start[k] = out.hist[k];
    for (std::size_t b = 1; b < blocks.count; ++b) {
      const std::uint32_t* h = out.hist.data() + b * buckets;
      for (std::size_t k = k0; k < k1; ++k) start[k] += h[k];
    }
  });
  out.ids.clear();
  out.offsets.clear();
  std::size_t pos = 0;
  for (std::size_t k = 1; k < buckets; ++k) {
    const std::size_t count = start[k];
    start[k] = pos;
    if (count) {
      out.ids.push_back(static_cast<std::uint32_t>(k));
      out.offsets.push_back(pos);
    }
    pos += count;
  }
  out.offsets.push_back(pos);
  pool.parallel_for(buckets, kBucketGrain, [&](std::size_t k0, std::size_t k1) {
    for (std::size_t b = 0; b < blocks.count; ++b) {
      std::uint32_t* h = out.hist.data() + b * buckets;
      for (std::size_t k = std::max<std::size_t>(k0, 1); k < k1; ++k) {
        const std::size_t count = h[k];
        h[k] = static_cast<std::uint32_t>(start[k]);
        start[k] += count;
      }
    }
  });
  out.entries.resize_discard(pos);
  pool.parallel_for(blocks.count, 1, [&](std::size_t b0, std::size_t b1) {
    for (std::size_t b = b0; b < b1; ++b) {
      std::uint32_t* h = out.hist.data() + b * buckets;
      for (std::size_t i = blocks.begin(b); i < blocks.begin(b + 1); ++i) {
        const std::int64_t d = window_digit(scalars[i], w);
        if (d == 0) continue;
        const std::uint32_t e = static_cast<std::uint32_t>(i) | (d < 0 ? kNegBit : 0);
        out.entries[h[d < 0 ? -d : d]++] = e;
      }
    }
  });
}

template <std::size_t L>
unsigned max_bit_length(std::span<const std::array<std::uint64_t, L>> scalars,
                        parallel::ThreadPool& pool) {
  const std::size_t m = scalars.size();
  const Blocks blocks{m, std::clamp<std::size_t>(m / 16384, 1, pool.size())};
  std::vector<std::array<std::uint64_t, L>> ors(blocks.count);
  pool.parallel_for(blocks.count, 1, [&](std::size_t b0, std::size_t b1) {
    for (std::size_t b = b0; b < b1; ++b) {
      std::array<std::uint64_t, L> acc{};
      for (std::size_t i = blocks.begin(b); i < blocks.begin(b + 1); ++i)
        for (std::size_t j = 0; j < L; ++j) acc[j] |= scalars[i][j];
      ors[b] = acc;
    }
  });
  std::array<std::uint64_t, L> all{};
  for (const auto& o : ors)
    for (std::size_t j = 0; j < L; ++j) all[j] |= o[j];
  for (std::size_t j = L; j-- > 0;)
    if (all[j]) return static_cast<unsigned>(64 * j + std::bit_width(all[j]));
  return 0;
}

// Σ k_i·P_i for m = scalars.size() entries whose points come from fetch.
template <class Curve, std::size_t L, class Fetch>
curve::Jacobian<Curve> pippenger(const Fetch& fetch,
                                 std::span<const std::array<std::uint64_t, L>> scalars,
                                 unsigned window_bits, parallel::ThreadPool& pool,
                                 const TreeParams& params) {
  using Point = curve::Affine<Curve>;
  using Jac = curve::Jacobian<Curve>;
  const unsigned bits = max_bit_length(scalars, pool);
  if (bits == 0) return Jac::infinity();
  const WindowPlan plan = window_bits ? make_window_plan(bits, window_bits)
                                      : MsmCostModel{}.best_plan(scalars.size(), bits);

  BucketLists lists;
  RawBuffer<Point> bucket_sums;
  Jac acc = Jac::infinity();
  for (unsigned w = plan.windows(); w-- > 0;) {
    const Window& window = plan.window[w];
    sort_into_buckets<L>(scalars, window, pool, lists);
    bucket_sums.resize_discard(lists.ids.size());
    sum_segments<Curve>(fetch, std::span<const std::uint32_t>(lists.entries.span()),
                        std::span<const std::size_t>(lists.offsets), bucket_sums.span(), pool,
                        params);
    const auto window_sum = reduce_buckets<Curve>(std::span<const std::uint32_t>(lists.ids),
                                                  std::as_const(bucket_sums).span(), pool, params);
    // acc holds the windows above this one, weighted relative to window w + 1.
    if (!window.top)
      for (unsigned i = 0; i < window.width; ++i) acc = acc.dbl();
    acc = acc.add(window_sum.to_jacobian());
  }
  return acc;
}

}  // namespace detail

}  // namespace prooflab::msm
