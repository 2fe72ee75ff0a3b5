// Eight elements of Fp2 = Fp[u]/(u² + 1) side by side: two FpX8 (core/field/fp_x8.hpp), for
// the G2 instance of the MSM's 8-lane batch-affine adder. The same lazy domain per
// component: mul and sqr take components below 2p (mul's left factor up to 4p) and return
// components below 2p; add / sub as FpX8; canonical() maps [0, 4p) to [0, p).
//
// Words: an Fp2 is c0's six limbs then c1's (its memory layout), so lane j of word k sits
// at words[8k + j] for k < 12.
#pragma once

#include "core/field/fp2.hpp"
#include "core/field/fp_x8.hpp"

namespace prooflab::field {

#if defined(__x86_64__)

struct Fp2X8 {
  FpX8 c0, c1;

  PROOFLAB_IFMA_INLINE static Fp2X8 load(const std::uint64_t* words) {
    return {FpX8::load(words), FpX8::load(words + 6 * 8)};
  }
  PROOFLAB_IFMA_INLINE static Fp2X8 splat(const Fp2& a) {
    return {FpX8::splat(a.c0), FpX8::splat(a.c1)};
  }
};

namespace x8 {

alignas(64) inline constexpr Limbs52 k4P = Layout<FpParams>::limbs(FpParams::kModulus, 4);

// [0, 4p) to [0, 2p).
PROOFLAB_IFMA_INLINE FpX8 below_2p(const FpX8& a) { return subtract_if_not_below(a, k2P); }

}  // namespace x8

PROOFLAB_IFMA_INLINE void x8_store(const Fp2X8& a, std::uint64_t* words) {
  x8_store(a.c0, words);
  x8_store(a.c1, words + 6 * 8);
}

// Karatsuba, as Fp2's operator*: c0 = a0b0 − a1b1, c1 = (a0 + a1)(b0 + b1) − a0b0 − a1b1,
// with b0 + b1 brought below 2p for mul's bound and the results below 2p again.
PROOFLAB_IFMA_INLINE Fp2X8 x8_mul(const Fp2X8& a, const Fp2X8& b) {
  const FpX8 t0 = x8_mul(a.c0, b.c0), t1 = x8_mul(a.c1, b.c1);
  const FpX8 cross = x8_mul(x8_add(a.c0, a.c1), x8::below_2p(x8_add(b.c0, b.c1)));
  const FpX8 c0 = x8::below_2p(x8_sub(t0, t1, x8::k2P));  // (0, 4p) first
  const FpX8 c1 = x8::below_2p(x8::subtract_if_not_below(  // (0, 6p) first
      x8_sub(x8_sub(cross, t0, x8::k2P), t1, x8::k2P), x8::k4P));
  return {c0, c1};
}

// Complex squaring, as Fp2::square: (a0 + a1)(a0 − a1) + 2·a0·a1·u.
PROOFLAB_IFMA_INLINE Fp2X8 x8_sqr(const Fp2X8& a) {
  const FpX8 c0 = x8_mul(x8_add(a.c0, a.c1), x8::below_2p(x8_sub(a.c0, a.c1, x8::k2P)));
  const FpX8 c1 = x8_mul(x8_add(a.c0, a.c0), a.c1);
  return {c0, c1};
}

PROOFLAB_IFMA_INLINE Fp2X8 x8_add(const Fp2X8& a, const Fp2X8& b) {
  return {x8_add(a.c0, b.c0), x8_add(a.c1, b.c1)};
}

// a + m − b per component, b ≤ m.
PROOFLAB_IFMA_INLINE Fp2X8 x8_sub(const Fp2X8& a, const Fp2X8& b, const x8::Limbs52& m) {
  return {x8_sub(a.c0, b.c0, m), x8_sub(a.c1, b.c1, m)};
}

PROOFLAB_IFMA_INLINE Fp2X8 x8_negate_where(__mmask8 lanes, const Fp2X8& a) {
  return {x8_negate_where(lanes, a.c0), x8_negate_where(lanes, a.c1)};
}

PROOFLAB_IFMA_INLINE Fp2X8 x8_select(__mmask8 lanes, const Fp2X8& a, const Fp2X8& b) {
  return {x8_select(lanes, a.c0, b.c0), x8_select(lanes, a.c1, b.c1)};
}

PROOFLAB_IFMA_INLINE Fp2X8 x8_canonical(const Fp2X8& a) {
  return {x8_canonical(a.c0), x8_canonical(a.c1)};
}

#endif  // __x86_64__

}  // namespace prooflab::field
