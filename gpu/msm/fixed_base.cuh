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

#include "gpu/msm/affine_batch.cuh"

namespace prooflab::gpu::msm {

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
      prefix[j] = batch_prefix(prefix, j, q);
    }
    finish_affine_batch(
        [&](std::uint32_t j) -> typename Bucket::Affine& { return table[(w0 + j) * n + i]; }, zz, zzz, prefix, k);
  }
}

}  // namespace prooflab::gpu::msm
