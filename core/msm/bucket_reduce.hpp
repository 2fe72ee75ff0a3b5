// Bucket reduction: Σ id·B_id over the non-empty buckets of one window.
//
// The running-sum trick (running += B_b from the top bucket down, total += running) costs
// two additions per bucket, both sequential, so in XYZZ form (a mixed and a full addition,
// about 2.2 Jacobian mixed additions together). Splitting the bucket index as
// id = h·2^s + l instead gives
//     Σ id·B_id = 2^s · Σ_h h·G_h + Σ_l l·H_l,  G_h = Σ_l B_{h,l},  H_l = Σ_h B_{h,l},
// the same two additions per bucket but all of them independent group sums, which run as
// batch-affine trees on the pool (about half the price each). The two weighted sums over
// ~2^(c/2) groups are reduced the same way, down to short running sums.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/curve/xyzz.hpp"
#include "core/msm/segment_sum.hpp"

namespace prooflab::msm {

// k·P for a small k > 0 (double-and-add).
template <class Curve>
curve::Xyzz<Curve> xyzz_mul_small(const curve::Xyzz<Curve>& p, std::uint32_t k) {
  auto acc = p;
  for (int i = 30 - std::countl_zero(k); i >= 0; --i) {
    acc = acc.dbl();
    if ((k >> i) & 1) acc = acc.add(p);
  }
  return acc;
}

// Σ ids[s]·sums[s] by the running-sum trick; ids strictly increasing and > 0.
template <class Curve>
curve::Xyzz<Curve> weighted_sum_running(std::span<const std::uint32_t> ids,
                                        std::span<const curve::Affine<Curve>> sums) {
  using Xyzz = curve::Xyzz<Curve>;
  Xyzz running = Xyzz::infinity(), total = Xyzz::infinity();
  for (std::size_t s = ids.size(); s-- > 0;) {
    running = running.add_mixed(sums[s]);
    // running = Σ_{s' >= s} sums[s'] is the running sum of every weight in (ids[s−1], ids[s]].
    const std::uint32_t gap = ids[s] - (s > 0 ? ids[s - 1] : 0);
    total = total.add(gap == 1 ? running : xyzz_mul_small(running, gap));
  }
  return total;
}

// Below this many buckets a running sum is as cheap as the two tree passes (their batches
// are small); above it the trees win, and they run on the pool.
inline constexpr std::size_t kRadixReduceMin = 64;

// Σ ids[s]·sums[s]; ids strictly increasing and > 0.
template <class Curve>
curve::Xyzz<Curve> reduce_buckets(std::span<const std::uint32_t> ids,
                                  std::span<const curve::Affine<Curve>> sums,
                                  parallel::ThreadPool& pool, const TreeParams& params) {
  using Point = curve::Affine<Curve>;
  if (ids.size() < kRadixReduceMin) return weighted_sum_running<Curve>(ids, sums);
  const unsigned bits = static_cast<unsigned>(std::bit_width(ids.back()));
  const unsigned s = bits / 2;
  const std::uint32_t low_mask = (std::uint32_t{1} << s) - 1;

  // Group entries: first the high groups (contiguous, ids ascend), then the low groups
  // (a counting sort on the low bits). Zero parts have weight zero and are left out.
  std::vector<std::uint32_t> entries;
  entries.reserve(2 * ids.size());
  std::vector<std::size_t> offsets;
  std::vector<std::uint32_t> group_ids;
  for (std::size_t j = 0; j < ids.size(); ++j) {
    const std::uint32_t h = ids[j] >> s;
    if (h == 0) continue;
    if (group_ids.empty() || group_ids.back() != h) {
      group_ids.push_back(h);
      offsets.push_back(entries.size());
    }
    entries.push_back(static_cast<std::uint32_t>(j));
  }
  const std::size_t high_groups = group_ids.size();
  std::vector<std::size_t> cursor(low_mask + 1, 0);
  for (const std::uint32_t id : ids) ++cursor[id & low_mask];
  std::size_t pos = entries.size();
  for (std::uint32_t l = 1; l <= low_mask; ++l) {
    const std::size_t count = cursor[l];
    if (count == 0) continue;
    group_ids.push_back(l);
    offsets.push_back(pos);
    cursor[l] = pos;
    pos += count;
  }
  entries.resize(pos);
  for (std::size_t j = 0; j < ids.size(); ++j) {
    const std::uint32_t l = ids[j] & low_mask;
    if (l) entries[cursor[l]++] = static_cast<std::uint32_t>(j);
  }
  offsets.push_back(entries.size());

  std::vector<Point> group_sums(group_ids.size());
  sum_segments<Curve>(ArrayFetch<Point>{sums.data()}, std::span<const std::uint32_t>(entries),
                      std::span<const std::size_t>(offsets), std::span(group_sums), pool, params);
  // The weighted sums of the groups are the same problem on ~2^(bits/2) entries: recurse
  // (it ends in running sums below kRadixReduceMin entries).
  const auto high =
      reduce_buckets<Curve>(std::span<const std::uint32_t>(group_ids).first(high_groups),
                            std::span<const Point>(group_sums).first(high_groups), pool, params);
  const auto low =
      reduce_buckets<Curve>(std::span<const std::uint32_t>(group_ids).subspan(high_groups),
                            std::span<const Point>(group_sums).subspan(high_groups), pool, params);
  auto acc = high;
  for (unsigned i = 0; i < s; ++i) acc = acc.dbl();
  return acc.add(low);
}

}  // namespace prooflab::msm
