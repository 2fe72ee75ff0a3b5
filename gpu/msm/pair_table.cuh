// The pair table's per-thread step, shared by its kernel (pair_table_kernels.cu) and the host
// simulator: entry j = P_2j + P_2j+1 in affine form (infinity as (0, 0)), kInversionBatch
// entries per thread converted with one inversion (affine_batch.cuh). The batch addition over
// it (pippenger.cuh sum_selected_share<…, true>) adds one point for a pair whose two bits are
// set. C++17.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gpu/msm/affine_batch.cuh"

namespace prooflab::gpu::msm {

// Thread t's entries [t·kInversionBatch, …) of the `pairs` = n / 2 entries.
template <class Bucket>
PROOFLAB_HDI void pair_sums(const typename Bucket::Affine* bases, std::size_t pairs, std::size_t t,
                            typename Bucket::Affine* table) {
  using F = typename Bucket::Field;
  const std::size_t first = t * kInversionBatch;
  if (first >= pairs) return;
  const std::uint32_t k =
      pairs - first < kInversionBatch ? static_cast<std::uint32_t>(pairs - first) : kInversionBatch;
  F zz[kInversionBatch], zzz[kInversionBatch], prefix[kInversionBatch];
  PROOFLAB_NO_UNROLL for (std::uint32_t j = 0; j < k; ++j) {
    Bucket q = Bucket::from_affine(bases[2 * (first + j)]);
    q.add_mixed(bases[2 * (first + j) + 1]);  // doubling and opposite points handled
    table[first + j].x = q.x;  // X and Y for now; made affine below
    table[first + j].y = q.y;
    zz[j] = q.zz;
    zzz[j] = q.zzz;
    prefix[j] = batch_prefix(prefix, j, q);
  }
  finish_affine_batch([&](std::uint32_t j) -> typename Bucket::Affine& { return table[first + j]; }, zz, zzz,
                      prefix, k);
}

}  // namespace prooflab::gpu::msm
