// The fixed-base table's per-point step, shared by its kernel (fixed_base_kernels.cu) and the
// host simulator: entry w·n + i of the table is 2^(c·w)·P_i in affine form, made from entry
// (w − 1)·n + i by c doublings in XYZZ and one conversion to affine (a Fermat inversion of
// ZZ·ZZZ: 1/ZZ = ZZZ·t, 1/ZZZ = ZZ·t for t = 1/(ZZ·ZZZ)). Built once per proving-key query;
// the MSM over it is pippenger.cuh's fixed-base (folded) mode. Fixed-base precomputation of this
// kind is textbook (e.g. Bernstein, Lange et al.'s fixed-base comb tables; ICICLE's MSM
// "precompute factor" does the same for GPU Pippenger); the code is our own.
#pragma once

#include <cstdint>

#include "gpu/msm/xyzz.cuh"

namespace prooflab::gpu::msm {

// x = X/ZZ, y = Y/ZZZ; infinity → (0, 0), core's affine infinity.
template <class Bucket>
PROOFLAB_HDI typename Bucket::Affine to_affine(const Bucket& q) {
  using F = typename Bucket::Field;
  typename Bucket::Affine r;
  if (q.is_infinity()) {
    r.x = F::zero();
    r.y = F::zero();
    return r;
  }
  const F t = (q.zz * q.zzz).inverse();
  r.x = q.x * (t * q.zzz);
  r.y = q.y * (t * q.zz);
  return r;
}

// 2^c·p for c ≥ 1.
template <class Bucket>
PROOFLAB_HDI typename Bucket::Affine times_two_to(const typename Bucket::Affine& p, std::uint32_t c) {
  if (p.is_infinity()) return p;
  Bucket q = Bucket::dbl_affine(p);
  for (std::uint32_t k = 1; k < c; ++k) q = q.dbl();
  return to_affine(q);
}

}  // namespace prooflab::gpu::msm
