// The fixed-base table's per-point step, shared by its kernel (fixed_base_kernels.cu) and the
// host simulator: entry w·n + i of the table is 2^(c·w)·P_i in affine form. One thread per
// point doubles on in XYZZ from window to window (c doublings each) and converts a batch of up
// to kInversionBatch windows to affine with one Fermat inversion (Montgomery's simultaneous
// inversion over d_j = ZZ_j·ZZZ_j: x = X·ZZZ/d, y = Y·ZZ/d), instead of one per entry (~570
// multiplications each: 4.8 s at 2^24, c = 24 on the H200, one inversion per entry). Built
// once per proving-key query; the MSM over it is pippenger.cuh's fixed-base (folded) mode.
// Fixed-base precomputation of this kind is textbook (ICICLE's MSM "precompute factor" does
// the same for GPU Pippenger); the code is our own.
#pragma once

#include <cstddef>
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

// Point i's windows 1 … W−1 of the table (window 0, table[i], is the base itself): writes
// table[w·n + i] = 2^(c·w)·table[i]. On the curve 2^k·P is infinity only for P infinity (the
// group orders are odd); an entry whose ZZ is zero anyway (a point off the curve) is written as
// infinity and kept out of the batch's product.
template <class Bucket>
PROOFLAB_HDI void shifted_windows(typename Bucket::Affine* table, std::size_t n, std::size_t i, std::uint32_t c,
                                  std::uint32_t windows) {
  using F = typename Bucket::Field;
  const typename Bucket::Affine p = table[i];
  Bucket q = Bucket::from_affine(p);
  PROOFLAB_NO_UNROLL for (std::uint32_t w0 = 1; w0 < windows; w0 += kInversionBatch) {
    const std::uint32_t k = windows - w0 < kInversionBatch ? windows - w0 : kInversionBatch;
    F zz[kInversionBatch], zzz[kInversionBatch], prefix[kInversionBatch];
    PROOFLAB_NO_UNROLL for (std::uint32_t j = 0; j < k; ++j) {
      PROOFLAB_NO_UNROLL for (std::uint32_t d = 0; d < c; ++d) q = outlined_dbl(q);
      typename Bucket::Affine& e = table[(w0 + j) * n + i];
      e.x = q.x;  // X and Y for now; made affine below
      e.y = q.y;
      zz[j] = q.zz;
      zzz[j] = q.zzz;
      const F dj = q.is_infinity() ? F::one() : q.zz * q.zzz;
      prefix[j] = j == 0 ? dj : prefix[j - 1] * dj;
    }
    F inv = outlined_inverse(prefix[k - 1]);  // 1 / (d_0 ⋯ d_{k−1})
    PROOFLAB_NO_UNROLL for (std::uint32_t j = k; j-- > 0;) {
      const bool at_infinity = zz[j].is_zero();
      const F t = j == 0 ? inv : inv * prefix[j - 1];  // 1 / d_j
      if (j > 0 && !at_infinity) inv = inv * (zz[j] * zzz[j]);
      typename Bucket::Affine& e = table[(w0 + j) * n + i];
      if (at_infinity) {
        e.x = F::zero();
        e.y = F::zero();
      } else {
        e.x = e.x * (t * zzz[j]);
        e.y = e.y * (t * zz[j]);
      }
    }
  }
}

}  // namespace prooflab::gpu::msm
