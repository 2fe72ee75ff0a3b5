// The group table's per-thread step and its indexing, shared by its kernel
// (group_table_kernels.cu), the batch addition over it (pippenger.cuh sum_selected_share) and
// the host simulator. A table of groups of g = 2 or 4 bases holds, for group q (bases g·q …
// g·q + g − 1), the sums of every combination of two or more of them, combination rank r at
// entry q·E + r (E = 2^g − 1 − g: 1 for pairs, 11 for groups of 4), in affine form (infinity as
// (0, 0)); a base past n counts as infinity. The ranks order the combinations' masks upwards
// (g = 4: 3, 5, 6, 7, 9, …, 15), so a pair's one entry is rank 0 in both. kInversionBatch
// entries per thread are made affine with one inversion (affine_batch.cuh). C++17.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gpu/msm/affine_batch.cuh"

namespace prooflab::gpu::msm {

// The combinations' masks (4 bits) with two or more bits, by rank, as nibbles: nibble r = mask.
constexpr std::uint64_t combination_masks() {
  std::uint64_t out = 0;
  unsigned rank = 0;
  for (unsigned v = 0; v < 16; ++v)
    if ((v & (v - 1)) != 0) out |= std::uint64_t{v} << (4 * rank++);
  return out;
}
// The inverse: nibble v = the rank of mask v (v with two or more bits).
constexpr std::uint64_t combination_ranks() {
  std::uint64_t out = 0;
  unsigned rank = 0;
  for (unsigned v = 0; v < 16; ++v)
    if ((v & (v - 1)) != 0) out |= std::uint64_t{rank++} << (4 * v);
  return out;
}
constexpr std::uint64_t kCombinationMasks = combination_masks();
constexpr std::uint64_t kCombinationRanks = combination_ranks();

// E: the entries per group of g bases.
PROOFLAB_HDI constexpr std::uint32_t group_entries(std::uint32_t g) { return (1u << g) - 1 - g; }
// A table's entries: ⌈n/g⌉·E, none below two bases.
PROOFLAB_HDI constexpr std::size_t group_table_entries(std::size_t n, std::uint32_t g) {
  return n < 2 ? 0 : (n + g - 1) / g * group_entries(g);
}
PROOFLAB_HDI constexpr std::uint32_t combination_mask(std::uint32_t rank) {
  return static_cast<std::uint32_t>(kCombinationMasks >> (4 * rank)) & 15;
}
PROOFLAB_HDI constexpr std::uint32_t combination_rank(std::uint32_t mask) {
  return static_cast<std::uint32_t>(kCombinationRanks >> (4 * mask)) & 15;
}

// Thread t's entries [t·kInversionBatch, …) of the `entries` = ⌈n/g⌉·E of a table of n bases.
template <class Bucket>
PROOFLAB_HDI void group_sums(const typename Bucket::Affine* bases, std::size_t n, std::uint32_t g,
                             std::size_t entries, std::size_t t, typename Bucket::Affine* table) {
  using F = typename Bucket::Field;
  const std::size_t first = t * kInversionBatch;
  if (first >= entries) return;
  const std::uint32_t k =
      entries - first < kInversionBatch ? static_cast<std::uint32_t>(entries - first) : kInversionBatch;
  const std::uint32_t per_group = group_entries(g);
  F zz[kInversionBatch], zzz[kInversionBatch], prefix[kInversionBatch];
  PROOFLAB_NO_UNROLL for (std::uint32_t j = 0; j < k; ++j) {
    const std::size_t e = first + j, base0 = e / per_group * g;
    Bucket q = Bucket::infinity();
    for (std::uint32_t mask = combination_mask(static_cast<std::uint32_t>(e % per_group)), b = 0; mask != 0;
         mask >>= 1, ++b)
      if ((mask & 1) && base0 + b < n) q.add_mixed(bases[base0 + b]);  // doubling and opposite points handled
    table[e].x = q.x;  // X and Y for now; made affine below
    table[e].y = q.y;
    zz[j] = q.zz;
    zzz[j] = q.zzz;
    prefix[j] = batch_prefix(prefix, j, q);
  }
  finish_affine_batch([&](std::uint32_t j) -> typename Bucket::Affine& { return table[first + j]; }, zz, zzz,
                      prefix, k);
}

}  // namespace prooflab::gpu::msm
