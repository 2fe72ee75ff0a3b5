// Runs the device MSM's phases (pippenger.cuh) on the host, thread after thread, with the
// kernels' own per-thread functions and the field arithmetic's emulated carry chain; the sort
// is std::stable_sort. Tests use it to check digits, chunk boundaries, the fix-up, the
// segmented reduction and the plan against core/msm without a GPU, for G1 (simulate_msm; the
// fixed-base mode: simulate_fixed_base_table / simulate_fixed_base_msm) and G2
// (simulate_g2_msm). It cannot see races (compute-sanitizer's racecheck covers those on the
// device). Slow: small n only.
#pragma once

#include <algorithm>
#include <cstring>
#include <numeric>
#include <span>
#include <vector>

#include "gpu/msm/core_points.hpp"
#include "gpu/msm/fixed_base.cuh"
#include "gpu/msm/msm_host.hpp"
#include "gpu/msm/group_table.cuh"
#include "gpu/msm/plan.hpp"

namespace prooflab::gpu::msm {

// index empty: Σ scalars[i]·bases[i]; else Σ scalars[i]·bases[index[i]] (run_indexed).
// Bucket: XyzzPoint over Curve's field; Raw: its core layout. opts.scalar_pieces: the pieces
// of a host-scalar call (run_host_scalars), each run through phases 1-4 into one set of buckets.
// folded: bases is a fixed-base table of W·n points for opts.window_bits (fixed_base.cuh).
template <class Curve, class Bucket, class Raw>
curve::Jacobian<Curve> simulate_pippenger(std::span<const curve::Affine<Curve>> bases,
                                          std::span<const prooflab::msm::Scalar> scalars,
                                          const MsmOptions& opts,
                                          std::span<const std::uint32_t> index, bool folded = false) {
  const std::size_t n = scalars.size();
  if (n == 0) return curve::Jacobian<Curve>::infinity();
  const RunPlan p = make_run_plan(n, opts, kDefaultAccumulateMinBlocks, folded);
  MsmOptions po = opts;
  po.window_bits = p.digits.c;
  std::vector<Bucket> buckets(p.bucket_count());
  // Garbage, as device scratch is, until phase 0 clears the ZZ of each: a bucket no run
  // reaches must read as infinity from that alone.
  std::memset(buckets.data(), 0xa5, buckets.size() * sizeof(Bucket));
  for (std::size_t b = 0; b < buckets.size(); ++b) clear_bucket(buckets.data(), b);
  // Phases 1-4 per piece of a host-scalar call (run_pippenger), one piece otherwise.
  const auto pieces = plan_scalar_pieces(n, opts.scalar_pieces, opts.sort_ahead);
  for (std::size_t k = 0; k < pieces.size(); ++k) {
    const ScalarPiece piece = pieces[k];
    const RunPlan q = make_run_plan(piece.len, po, kDefaultAccumulateMinBlocks, folded);
    std::vector<std::uint32_t> keys(q.entries), vals(q.entries);
    for (std::size_t i = 0; i < piece.len; ++i)
      make_digits(q.digits, reinterpret_cast<const std::uint32_t*>(&scalars[piece.first + i]),
                  static_cast<std::uint32_t>(i), piece.len, folded ? n : piece.len, keys.data(), vals.data());
    std::vector<std::size_t> order(q.entries);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return keys[a] < keys[b]; });
    std::vector<std::uint32_t> sk(q.entries), sv(q.entries);
    for (std::size_t i = 0; i < q.entries; ++i) {
      sk[i] = keys[order[i]];
      sv[i] = vals[order[i]];
    }
    std::vector<Bucket> heads(q.chunks), tails(q.chunks), groups(q.fixup_groups());
    const auto* piece_bases = index.empty() ? bases.data() + piece.first : bases.data();
    const ChunkArgs<Bucket> ca = chunk_args(q, sk.data(), sv.data(), piece_bases,
                                            index.empty() ? nullptr : index.data() + piece.first,
                                            buckets.data(), heads.data(), tails.data(), groups.data(), k > 0);
    for (std::size_t t = 0; t < q.chunks; ++t) accumulate_chunk(ca, t);
    for (std::size_t g = 0; g < q.fixup_groups(); ++g) group_heads(ca, g);
    for (std::size_t t = 0; t < q.chunks; ++t) fixup_chunk(ca, t);
  }
  // Garbage too: the reduction writes every segment sum, a narrow window's past its reach too.
  std::vector<Bucket> segs(p.segment_sums());
  std::memset(segs.data(), 0xa5, segs.size() * sizeof(Bucket));
  const ReduceArgs<Bucket> ra = reduce_args(p, buckets.data(), segs.data());
  for (std::size_t g = 0; g < p.reduce_threads(); ++g) reduce_segment(ra, g);
  std::vector<Raw> sums(p.digits.bucket_sets());
  for (std::uint32_t w = 0; w < p.digits.bucket_sets(); ++w) {
    Bucket acc = Bucket::infinity();
    for (std::uint32_t j = 0; j < p.segments; ++j) acc.add(segs[std::size_t{w} * p.segments + j]);
    std::memcpy(&sums[w], &acc, sizeof acc);
  }
  if (folded) return xyzz_from_raw<Curve>(sums[0]).to_jacobian();
  return combine_window_sums<Curve>(std::span<const Raw>(sums), p.digits).to_jacobian();
}

// The batch addition as sum_selected_on_device runs it: counts, inclusive sums, equal shares
// (batch_add_shares, or `share` when given), one sum_selected_share per thread; over the group
// table `table` of groups of `group` bits when it is not empty (group units).
template <class Curve, class Bucket>
curve::Jacobian<Curve> simulate_bitmap_sum(std::span<const curve::Affine<Curve>> bases,
                                           std::span<const std::uint64_t> bitmap, std::uint32_t share = 0,
                                           std::span<const curve::Affine<Curve>> table = {},
                                           std::uint32_t group = 1) {
  const std::size_t n = bases.size(), words = (n + 63) / 64;
  if (table.empty()) group = 1;
  std::vector<std::uint32_t> ends(words);
  std::uint32_t total = 0;
  for (std::size_t w = 0; w < words; ++w)
    ends[w] = total += popcount64(selected_units(word_below_n(bitmap.data(), n, w), group));
  BatchAddShares sh = batch_add_shares(total);
  if (share && total) sh = {(total + share - 1) / share, share};
  const auto* affine = reinterpret_cast<const typename Bucket::Affine*>(bases.data());
  Bucket s = Bucket::infinity();
  for (std::size_t t = 0; t < sh.threads; ++t) {
    const std::uint64_t begin = t * std::uint64_t{sh.share};
    const std::uint64_t end = std::min<std::uint64_t>(begin + sh.share, total);
    const auto b = static_cast<std::uint32_t>(begin), e = static_cast<std::uint32_t>(end);
    const auto* t_affine = reinterpret_cast<const typename Bucket::Affine*>(table.data());
    switch (group) {
      case 2: s.add(sum_selected_share<Bucket, 2>(affine, bitmap.data(), n, ends.data(), words, b, e, t_affine)); break;
      case 4: s.add(sum_selected_share<Bucket, 4>(affine, bitmap.data(), n, ends.data(), words, b, e, t_affine)); break;
      default: s.add(sum_selected_share<Bucket>(affine, bitmap.data(), n, ends.data(), words, b, e));
    }
  }
  curve::Xyzz<Curve> r;
  static_assert(sizeof r == sizeof s);
  std::memcpy(&r, &s, sizeof r);
  return r.to_jacobian();
}

inline curve::G1Jacobian simulate_msm(std::span<const curve::G1Affine> bases,
                                      std::span<const prooflab::msm::Scalar> scalars,
                                      const MsmOptions& opts = {},
                                      std::span<const std::uint32_t> index = {}) {
  return simulate_pippenger<curve::G1Curve, Xyzz32, G1XyzzRaw>(bases, scalars, opts, index);
}

// The fixed-base table of `bases` at width c (FixedBaseTable's build: window 0 the bases, the
// others by fixed_base.cuh's per-point step).
inline std::vector<curve::G1Affine> simulate_fixed_base_table(std::span<const curve::G1Affine> bases,
                                                             unsigned c) {
  const std::size_t n = bases.size();
  const unsigned windows = make_digit_plan(c, true).windows;
  std::vector<curve::G1Affine> table(n * windows);
  std::copy(bases.begin(), bases.end(), table.begin());
  auto* t = reinterpret_cast<Affine32*>(table.data());
  for (std::size_t i = 0; i < n; ++i) shifted_windows<Xyzz32>(t, n, i, c, windows);
  return table;
}

// Σ scalars[i]·P_i through the fixed-base mode over `table` (W·n points for width c).
inline curve::G1Jacobian simulate_fixed_base_msm(std::span<const curve::G1Affine> table,
                                                 std::span<const prooflab::msm::Scalar> scalars, unsigned c,
                                                 unsigned entries_per_thread = 0, unsigned scalar_pieces = 0) {
  return simulate_pippenger<curve::G1Curve, Xyzz32, G1XyzzRaw>(
      table, scalars, {.window_bits = c, .entries_per_thread = entries_per_thread, .scalar_pieces = scalar_pieces},
      {}, true);
}

inline curve::G1Jacobian simulate_sum_selected(std::span<const curve::G1Affine> bases,
                                               std::span<const std::uint64_t> bitmap, std::uint32_t share = 0) {
  return simulate_bitmap_sum<curve::G1Curve, Xyzz32>(bases, bitmap, share);
}

// The group table of `bases` in groups of `group` (GroupTable's build: group_table.cuh's
// per-thread step; GroupTable::entries entries).
inline std::vector<curve::G1Affine> simulate_group_table(std::span<const curve::G1Affine> bases, std::uint32_t group) {
  const std::size_t n = bases.size(), entries = group_table_entries(n, group);
  std::vector<curve::G1Affine> table(entries);
  const auto* b = reinterpret_cast<const Affine32*>(bases.data());
  auto* t = reinterpret_cast<Affine32*>(table.data());
  for (std::size_t i = 0; i * kInversionBatch < entries; ++i) group_sums<Xyzz32>(b, n, group, entries, i, t);
  return table;
}

// Σ of the selected bases over their group table (Msm::sum_selected_grouped).
inline curve::G1Jacobian simulate_sum_selected_grouped(std::span<const curve::G1Affine> bases,
                                                       std::span<const curve::G1Affine> table, std::uint32_t group,
                                                       std::span<const std::uint64_t> bitmap,
                                                       std::uint32_t share = 0) {
  return simulate_bitmap_sum<curve::G1Curve, Xyzz32>(bases, bitmap, share, table, group);
}

inline curve::G2Jacobian simulate_g2_msm(std::span<const curve::G2Affine> bases,
                                         std::span<const prooflab::msm::Scalar> scalars,
                                         const MsmOptions& opts = {},
                                         std::span<const std::uint32_t> index = {}) {
  return simulate_pippenger<curve::G2Curve, G2Xyzz32, G2XyzzRaw>(bases, scalars, opts, index);
}

inline curve::G2Jacobian simulate_g2_sum_selected(std::span<const curve::G2Affine> bases,
                                                  std::span<const std::uint64_t> bitmap) {
  return simulate_bitmap_sum<curve::G2Curve, G2Xyzz32>(bases, bitmap);
}

}  // namespace prooflab::gpu::msm
