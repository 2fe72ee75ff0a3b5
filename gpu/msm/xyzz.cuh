// Curve points on the device, generic over the coordinates' field F (Fp32 for G1, Fp2_32 for
// G2, as core's curve::Affine / curve::Xyzz are over G1Curve / G2Curve): affine (x, y;
// (0, 0) = infinity, as core's curve::Affine) and extended Jacobian XYZZ ((x, y) = (X/ZZ,
// Y/ZZZ); ZZ = 0 = infinity, as core's curve::Xyzz), the form buckets accumulate in.
// Formulas: EFD "g1p/shortw/xyzz" madd-2008-s (8M + 2S), add-2008-s (12M + 2S), dbl-2008-s-1
// and mdbl-2008-s-1 — the same ones core/curve/xyzz.hpp uses, so a device result can be
// compared with the CPU's after conversion to affine. None depends on the curve's b, so one
// template serves both groups. PROOFLAB_HDI: the same code runs on the host through the
// emulated carry chain (tests). F needs zero, one, is_zero, +, −, unary −, *, dbl, sqr and
// mul_diff (a·b − c·d: the Y coordinates' shape; for Fp both products in one reduction).
#pragma once

#include "gpu/field/fields.cuh"
#include "gpu/field/fp2_32.cuh"

namespace prooflab::gpu::msm {

using field::Fp2_32;
using field::Fp32;

// Whether the additions and doublings of points over F are compiled once per kernel file and
// called, instead of force-inlined at every use. G2's are (a mixed addition is 28 Fp
// multiplications, 2.8× G1's code: inlined into every kernel and call site, msm_g2_kernels.cu
// took over a quarter of an hour of CPU to compile); a call per addition of thousands of
// instructions costs little. G1's stay inlined, their code unchanged.
template <class F>
inline constexpr bool kOutlinedPointOps = false;
template <>
inline constexpr bool kOutlinedPointOps<Fp2_32> = true;

template <class P>
PROOFLAB_HD_NOINLINE P outlined_dbl(const P& p);
template <class P>
PROOFLAB_HD_NOINLINE void outlined_add_mixed(P& p, const typename P::Affine& q);
template <class P>
PROOFLAB_HD_NOINLINE void outlined_add(P& p, const P& q);

template <class F>
struct alignas(16) AffinePoint {
  F x, y;
  PROOFLAB_HDI bool is_infinity() const { return x.is_zero() && y.is_zero(); }
};

template <class F>
struct alignas(16) XyzzPoint {
  using Field = F;
  using Affine = AffinePoint<F>;
  F x, y, zz, zzz;

  PROOFLAB_HDI static XyzzPoint infinity() {
    XyzzPoint r;
    r.x = F::one();
    r.y = F::one();
    r.zz = F::zero();
    r.zzz = F::zero();
    return r;
  }
  PROOFLAB_HDI static XyzzPoint from_affine(const Affine& p) {
    if (p.is_infinity()) return infinity();
    XyzzPoint r;
    r.x = p.x;
    r.y = p.y;
    r.zz = F::one();
    r.zzz = F::one();
    return r;
  }
  PROOFLAB_HDI bool is_infinity() const { return zz.is_zero(); }

  PROOFLAB_HDI static XyzzPoint dbl_affine(const Affine& p) {
    const F u = p.y.dbl(), v = u.sqr(), w = u * v, s = p.x * v;
    const F x2 = p.x.sqr(), m = x2.dbl() + x2;
    XyzzPoint r;
    r.x = m.sqr() - s.dbl();
    r.y = F::mul_diff(m, s - r.x, w, p.y);
    r.zz = v;
    r.zzz = w;
    return r;
  }

  PROOFLAB_HDI XyzzPoint dbl() const {
    if constexpr (kOutlinedPointOps<F>) return outlined_dbl(*this);
    else return dbl_inline();
  }
  PROOFLAB_HDI XyzzPoint dbl_inline() const {
    if (is_infinity()) return *this;
    const F u = y.dbl(), v = u.sqr(), w = u * v, s = x * v;
    const F x2 = x.sqr(), m = x2.dbl() + x2;
    XyzzPoint r;
    r.x = m.sqr() - s.dbl();
    r.y = F::mul_diff(m, s - r.x, w, y);
    r.zz = v * zz;
    r.zzz = w * zzz;
    return r;
  }

  // this += q (q affine). Handles infinity on either side, q == this (doubling) and
  // q == −this (infinity), so repeated and opposite points in one bucket are right.
  PROOFLAB_HDI void add_mixed(const Affine& q) {
    if constexpr (kOutlinedPointOps<F>) outlined_add_mixed(*this, q);
    else add_mixed_inline(q);
  }
  PROOFLAB_HDI void add_mixed_inline(const Affine& q) {
    if (q.is_infinity()) return;
    if (is_infinity()) {
      *this = from_affine(q);
      return;
    }
    const F u2 = q.x * zz, s2 = q.y * zzz;
    const F p = u2 - x, r = s2 - y;
    if (p.is_zero()) {
      *this = r.is_zero() ? dbl_affine(q) : infinity();
      return;
    }
    F pp, ppp;
    set_sum(p, r, x, y, pp, ppp);
    zz = zz * pp;
    zzz = zzz * ppp;
  }

  // this += q (both XYZZ).
  PROOFLAB_HDI void add(const XyzzPoint& q) {
    if constexpr (kOutlinedPointOps<F>) outlined_add(*this, q);
    else add_inline(q);
  }
  PROOFLAB_HDI void add_inline(const XyzzPoint& q) {
    if (q.is_infinity()) return;
    if (is_infinity()) {
      *this = q;
      return;
    }
    const F u1 = x * q.zz, u2 = q.x * zz, s1 = y * q.zzz, s2 = q.y * zzz;
    const F p = u2 - u1, r = s2 - s1;
    if (p.is_zero()) {
      *this = r.is_zero() ? dbl() : infinity();
      return;
    }
    F pp, ppp;
    set_sum(p, r, u1, s1, pp, ppp);
    zz = zz * q.zz * pp;
    zzz = zzz * q.zzz * ppp;
  }

  // The part add-2008-s and madd-2008-s share, for P = u2 − u1 ≠ 0 and R = s2 − s1:
  // X3 = R² − PPP − 2·U1·PP, Y3 = R·(U1·PP − X3) − S1·PPP; pp, ppp = P², P³ for ZZ3, ZZZ3.
  PROOFLAB_HDI void set_sum(const F& p, const F& r, const F& u1, const F& s1, F& pp, F& ppp) {
    pp = p.sqr();
    ppp = p * pp;
    const F qq = u1 * pp;
    const F x3 = r.sqr() - ppp - qq.dbl();
    y = F::mul_diff(r, qq - x3, s1, ppp);
    x = x3;
  }

  // k·this for a small non-negative k (bucket-reduction offsets), double-and-add from k's top
  // bit: lo < 2^(c−1) takes c − 2 doublings, not 32 (the tails at c = 16: 14).
  PROOFLAB_HDI XyzzPoint times(std::uint32_t k) const {
    if (k == 0) return infinity();
    XyzzPoint acc = *this;
    for (int bit = top_bit(k) - 1; bit >= 0; --bit) {
      acc = acc.dbl();
      if ((k >> bit) & 1u) acc.add(*this);
    }
    return acc;
  }

 private:
  PROOFLAB_HDI static int top_bit(std::uint32_t k) {  // k > 0
#if defined(__CUDA_ARCH__)
    return 31 - __clz(static_cast<int>(k));
#else
    return 31 - __builtin_clz(k);
#endif
  }
};

template <class P>
PROOFLAB_HD_NOINLINE P outlined_dbl(const P& p) {
  return p.dbl_inline();
}
template <class P>
PROOFLAB_HD_NOINLINE void outlined_add_mixed(P& p, const typename P::Affine& q) {
  p.add_mixed_inline(q);
}
template <class P>
PROOFLAB_HD_NOINLINE void outlined_add(P& p, const P& q) {
  p.add_inline(q);
}

template <class F>
PROOFLAB_HDI AffinePoint<F> negate_if(const AffinePoint<F>& p, bool neg) {
  AffinePoint<F> r = p;
  if (neg) r.y = -p.y;  // −0 stays 0, so −infinity is infinity
  return r;
}

// G1 (the kernels' names since issue 5) and G2.
using Affine32 = AffinePoint<Fp32>;
using Xyzz32 = XyzzPoint<Fp32>;
using G2Affine32 = AffinePoint<Fp2_32>;
using G2Xyzz32 = XyzzPoint<Fp2_32>;
static_assert(sizeof(Affine32) == 96 && sizeof(Xyzz32) == 192, "core's G1 layouts");
static_assert(sizeof(G2Affine32) == 192 && sizeof(G2Xyzz32) == 384, "core's G2 layouts");

}  // namespace prooflab::gpu::msm
