// Fp2 = Fp[u]/(u² + 1) on the device, the field of G2's coordinates: c0 + c1·u over Fp32, in
// core/field/fp2.hpp's layout (c0 then c1, 96 bytes) and with its formulas — Karatsuba
// multiplication (3 Fp multiplications), complex squaring (2) — so every result is the
// unique canonical pair core computes and compares bit for bit after a copy.
// PROOFLAB_HDI: the same code runs on the host through the emulated carry chain (tests).
#pragma once

#include "gpu/field/fields.cuh"

namespace prooflab::gpu::field {

struct alignas(16) Fp2_32 {
  Fp32 c0, c1;

  PROOFLAB_HDI static Fp2_32 zero() { return {Fp32::zero(), Fp32::zero()}; }
  PROOFLAB_HDI static Fp2_32 one() { return {Fp32::one(), Fp32::zero()}; }
  PROOFLAB_HDI bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  friend PROOFLAB_HDI bool operator==(const Fp2_32& a, const Fp2_32& b) {
    return a.c0 == b.c0 && a.c1 == b.c1;
  }
  friend PROOFLAB_HDI bool operator!=(const Fp2_32& a, const Fp2_32& b) { return !(a == b); }

  friend PROOFLAB_HDI Fp2_32 operator+(const Fp2_32& a, const Fp2_32& b) {
    return {a.c0 + b.c0, a.c1 + b.c1};
  }
  friend PROOFLAB_HDI Fp2_32 operator-(const Fp2_32& a, const Fp2_32& b) {
    return {a.c0 - b.c0, a.c1 - b.c1};
  }
  PROOFLAB_HDI Fp2_32 operator-() const { return {-c0, -c1}; }
  PROOFLAB_HDI Fp2_32 dbl() const { return {c0.dbl(), c1.dbl()}; }

  // (a0 + a1·u)(b0 + b1·u) = a0·b0 − a1·b1 + ((a0 + a1)(b0 + b1) − a0·b0 − a1·b1)·u.
  friend PROOFLAB_HDI Fp2_32 operator*(const Fp2_32& a, const Fp2_32& b) {
    const Fp32 t0 = a.c0 * b.c0, t1 = a.c1 * b.c1;
    return {t0 - t1, (a.c0 + a.c1) * (b.c0 + b.c1) - t0 - t1};
  }
  // a·b − c·d (the point formulas' shape, Mont32::mul_diff for Fp): two multiplications.
  PROOFLAB_HDI static Fp2_32 mul_diff(const Fp2_32& a, const Fp2_32& b, const Fp2_32& c, const Fp2_32& d) {
    return a * b - c * d;
  }
  // (c0 + c1)(c0 − c1) + 2·c0·c1·u.
  PROOFLAB_HDI Fp2_32 sqr() const {
    const Fp32 t = c0 * c1;
    return {(c0 + c1) * (c0 - c1), t.dbl()};
  }
};

static_assert(sizeof(Fp2_32) == 96, "Fp2_32 must have the CPU Fp2's 96-byte layout");

}  // namespace prooflab::gpu::field
