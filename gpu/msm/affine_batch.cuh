// XYZZ points to affine in batches with one Fermat inversion (Montgomery's simultaneous
// inversion over d_j = ZZ_j·ZZZ_j: x = X·ZZZ/d, y = Y·ZZ/d), for the tables built once per
// proving-key query (fixed_base.cuh, group_table.cuh). A point at infinity (ZZ = 0) is written
// as (0, 0) and kept out of its batch's product. C++17, PROOFLAB_HDI (the host simulator runs it).
#pragma once

#include <cstdint>

#include "gpu/msm/xyzz.cuh"

namespace prooflab::gpu::msm {

constexpr std::uint32_t kInversionBatch = 16;

// Called, not inlined, as the doublings below are (outlined_dbl): with both inlined into the
// batch's loops this one kernel took cicc ~9.5 min of CPU at -O3 (8 s outlined; at -O1 11 s,
// but the build then ran 86 s instead of 1.9 at 2^24 on the H200).
template <class F>
PROOFLAB_HD_NOINLINE F outlined_inverse(const F& a) {
  return a.inverse();
}

// prefix[j] of a batch: Π_{i ≤ j} d_i, d_i = ZZ_i·ZZZ_i (one for a point at infinity).
template <class F, class Bucket>
PROOFLAB_HDI F batch_prefix(const F* prefix, std::uint32_t j, const Bucket& q) {
  const F dj = q.is_infinity() ? F::one() : q.zz * q.zzz;
  return j == 0 ? dj : prefix[j - 1] * dj;
}

// Makes entry(j) affine for j < k ≤ kInversionBatch: entry(j) holds point j's X and Y, zz and zzz
// its ZZ and ZZZ, prefix the batch_prefix products.
template <class F, class Entry>
PROOFLAB_HDI void finish_affine_batch(Entry&& entry, const F* zz, const F* zzz, const F* prefix, std::uint32_t k) {
  F inv = outlined_inverse(prefix[k - 1]);  // 1 / (d_0 ⋯ d_{k−1})
  PROOFLAB_NO_UNROLL for (std::uint32_t j = k; j-- > 0;) {
    const bool at_infinity = zz[j].is_zero();
    const F t = j == 0 ? inv : inv * prefix[j - 1];  // 1 / d_j
    if (j > 0 && !at_infinity) inv = inv * (zz[j] * zzz[j]);
    auto& e = entry(j);
    if (at_infinity) {
      e.x = F::zero();
      e.y = F::zero();
    } else {
      e.x = e.x * (t * zzz[j]);
      e.y = e.y * (t * zz[j]);
    }
  }
}

}  // namespace prooflab::gpu::msm
