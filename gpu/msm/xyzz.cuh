// G1 points on the device: affine (x, y; (0, 0) = infinity, as core's curve::Affine) and
// extended Jacobian XYZZ ((x, y) = (X/ZZ, Y/ZZZ); ZZ = 0 = infinity, as core's curve::Xyzz),
// the form buckets accumulate in. Formulas: EFD "g1p/shortw/xyzz" madd-2008-s (8M + 2S),
// add-2008-s (12M + 2S), dbl-2008-s-1 and mdbl-2008-s-1 — the same ones core/curve/xyzz.hpp
// uses, so a device result can be compared with the CPU's after conversion to affine.
// PROOFLAB_HDI: the same code runs on the host through the emulated carry chain (tests).
#pragma once

#include "gpu/field/fields.cuh"

namespace prooflab::gpu::msm {

using field::Fp32;

struct alignas(16) Affine32 {
  Fp32 x, y;
  PROOFLAB_HDI bool is_infinity() const { return x.is_zero() && y.is_zero(); }
};

struct alignas(16) Xyzz32 {
  Fp32 x, y, zz, zzz;

  PROOFLAB_HDI static Xyzz32 infinity() {
    Xyzz32 r;
    r.x = Fp32::one();
    r.y = Fp32::one();
    r.zz = Fp32::zero();
    r.zzz = Fp32::zero();
    return r;
  }
  PROOFLAB_HDI static Xyzz32 from_affine(const Affine32& p) {
    if (p.is_infinity()) return infinity();
    Xyzz32 r;
    r.x = p.x;
    r.y = p.y;
    r.zz = Fp32::one();
    r.zzz = Fp32::one();
    return r;
  }
  PROOFLAB_HDI bool is_infinity() const { return zz.is_zero(); }

  PROOFLAB_HDI static Xyzz32 dbl_affine(const Affine32& p) {
    const Fp32 u = p.y.dbl(), v = u.sqr(), w = u * v, s = p.x * v;
    const Fp32 x2 = p.x.sqr(), m = x2.dbl() + x2;
    Xyzz32 r;
    r.x = m.sqr() - s.dbl();
    r.y = m * (s - r.x) - w * p.y;
    r.zz = v;
    r.zzz = w;
    return r;
  }

  PROOFLAB_HDI Xyzz32 dbl() const {
    if (is_infinity()) return *this;
    const Fp32 u = y.dbl(), v = u.sqr(), w = u * v, s = x * v;
    const Fp32 x2 = x.sqr(), m = x2.dbl() + x2;
    Xyzz32 r;
    r.x = m.sqr() - s.dbl();
    r.y = m * (s - r.x) - w * y;
    r.zz = v * zz;
    r.zzz = w * zzz;
    return r;
  }

  // this += q (q affine). Handles infinity on either side, q == this (doubling) and
  // q == −this (infinity), so repeated and opposite points in one bucket are right.
  PROOFLAB_HDI void add_mixed(const Affine32& q) {
    if (q.is_infinity()) return;
    if (is_infinity()) {
      *this = from_affine(q);
      return;
    }
    const Fp32 u2 = q.x * zz, s2 = q.y * zzz;
    const Fp32 p = u2 - x, r = s2 - y;
    if (p.is_zero()) {
      *this = r.is_zero() ? dbl_affine(q) : infinity();
      return;
    }
    Fp32 pp, ppp;
    set_sum(p, r, x, y, pp, ppp);
    zz = zz * pp;
    zzz = zzz * ppp;
  }

  // this += q (both XYZZ).
  PROOFLAB_HDI void add(const Xyzz32& q) {
    if (q.is_infinity()) return;
    if (is_infinity()) {
      *this = q;
      return;
    }
    const Fp32 u1 = x * q.zz, u2 = q.x * zz, s1 = y * q.zzz, s2 = q.y * zzz;
    const Fp32 p = u2 - u1, r = s2 - s1;
    if (p.is_zero()) {
      *this = r.is_zero() ? dbl() : infinity();
      return;
    }
    Fp32 pp, ppp;
    set_sum(p, r, u1, s1, pp, ppp);
    zz = zz * q.zz * pp;
    zzz = zzz * q.zzz * ppp;
  }

  // The part add-2008-s and madd-2008-s share, for P = u2 − u1 ≠ 0 and R = s2 − s1:
  // X3 = R² − PPP − 2·U1·PP, Y3 = R·(U1·PP − X3) − S1·PPP; pp, ppp = P², P³ for ZZ3, ZZZ3.
  PROOFLAB_HDI void set_sum(const Fp32& p, const Fp32& r, const Fp32& u1, const Fp32& s1, Fp32& pp,
                            Fp32& ppp) {
    pp = p.sqr();
    ppp = p * pp;
    const Fp32 qq = u1 * pp;
    const Fp32 x3 = r.sqr() - ppp - qq.dbl();
    y = r * (qq - x3) - s1 * ppp;
    x = x3;
  }

  // k·this for a small non-negative k (bucket-reduction offsets), double-and-add from the top.
  PROOFLAB_HDI Xyzz32 times(std::uint32_t k) const {
    Xyzz32 acc = infinity();
    for (int bit = 31; bit >= 0; --bit) {
      acc = acc.dbl();
      if ((k >> bit) & 1u) acc.add(*this);
    }
    return acc;
  }
};

PROOFLAB_HDI Affine32 negate_if(const Affine32& p, bool neg) {
  Affine32 r = p;
  if (neg) r.y = -p.y;  // −0 stays 0, so −infinity is infinity
  return r;
}

}  // namespace prooflab::gpu::msm
