// Eight elements of Fp side by side in AVX-512 registers, for batch arithmetic with the IFMA
// instructions (vpmadd52luq / vpmadd52huq: the low / high 52 bits of a 52 × 52-bit product,
// added to a 64-bit lane). Used by the MSM's 8-lane batch-affine adder
// (core/msm/batch_affine_x8.cpp); nothing else should need it.
//
// Representation. Limb k of all eight elements is one register; an element is the *same
// integer* as Fp's Montgomery limbs (a·2^384 mod p), cut into eight limbs of 48 bits. The
// radix is 2^48, not IFMA's native 2^52, so that eight rounds of word-by-word Montgomery
// reduction divide by exactly 2^384 = Fp's R: values move between Fp and FpX8 by shifts
// alone, and products mean what Fp's products mean. The price is that IFMA splits a product
// at bit 52, not at the radix. With one factor pre-scaled by 16, the high half is the
// product's bits 48.. (aligned with the next limb) and the low half is 16 × its bits 0..47;
// the low halves accumulate in registers of their own, divided by 16 once per column.
//
// Lazy values: mul returns [0, 2p) for a < 4p, b < 2p (p < 2^381, so (8p² + 2^384·p)/2^384
// < 2p); add / sub return the stated bounds; canonical() brings [0, 4p) to [0, p), the only
// form Fp and the curve code accept. Limbs are kept normalised (< 2^48) between operations:
// IFMA reads only the low 52 bits of its inputs.
//
// Every function needs AVX-512F and AVX512-IFMA and is compiled for them by attribute (the
// rest of the program is not); call them only where ifma_available() is true.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "core/field/fp.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#define PROOFLAB_IFMA_TARGET __attribute__((target("avx512f,avx512ifma")))
#define PROOFLAB_IFMA_INLINE inline __attribute__((always_inline, target("avx512f,avx512ifma")))
#endif

namespace prooflab::field {

// Whether this CPU (and OS) runs AVX-512F with IFMA; false on every other architecture.
inline bool ifma_available() {
#if defined(__x86_64__)
  static const bool has = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512ifma");
  return has;
#else
  return false;
#endif
}

namespace x8 {

inline constexpr std::size_t kLimbs = 8;
inline constexpr std::uint64_t kMask48 = (std::uint64_t{1} << 48) - 1;
using Limbs48 = std::array<std::uint64_t, kLimbs>;

// k·v of a 6-word integer in radix 2^48 (k·v < 2^384).
constexpr Limbs48 limbs48(const BigInt<6>& v, std::uint64_t k = 1) {
  Limbs48 out{};
  for (std::size_t i = 0; i < kLimbs; ++i) {  // bits 48i .. 48i + 47
    const std::size_t bit = 48 * i, word = bit / 64, shift = bit % 64;
    std::uint64_t x = v[word] >> shift;
    if (shift > 16 && word + 1 < 6) x |= v[word + 1] << (64 - shift);
    out[i] = x & kMask48;
  }
  std::uint64_t carry = 0;
  for (auto& l : out) {
    const unsigned __int128 t = static_cast<unsigned __int128>(l) * k + carry;
    l = static_cast<std::uint64_t>(t) & kMask48;
    carry = static_cast<std::uint64_t>(t >> 48);
  }
  return out;
}

inline constexpr Limbs48 kP = limbs48(FpParams::kModulus);
inline constexpr Limbs48 k2P = limbs48(FpParams::kModulus, 2);
// p's limbs each times 16 (not normalised: < 2^52), the pre-scaled factor of q·p.
inline constexpr Limbs48 kP16 = [] {
  Limbs48 l = kP;
  for (auto& x : l) x <<= 4;
  return l;
}();
inline constexpr std::uint64_t kPInv48 = FpParams::kInv & kMask48;  // −p⁻¹ mod 2^48
static_assert(k2P[7] < (std::uint64_t{1} << 47), "8p must stay below 2^384 (mul's bound)");

}  // namespace x8

#if defined(__x86_64__)

struct FpX8 {
  __m512i limb[x8::kLimbs];
};

namespace x8 {

PROOFLAB_IFMA_INLINE __m512i splat(std::uint64_t v) {
  return _mm512_set1_epi64(static_cast<long long>(v));
}

// Carries every limb's bits above 48 into the next one (arithmetically: limbs may be
// negative after a subtraction; the top limb keeps the sign).
PROOFLAB_IFMA_INLINE void carry_signed(FpX8& a) {
  const __m512i mask = splat(kMask48);
  for (std::size_t k = 0; k + 1 < kLimbs; ++k) {
    const __m512i c = _mm512_srai_epi64(a.limb[k], 48);
    a.limb[k] = _mm512_and_si512(a.limb[k], mask);
    a.limb[k + 1] = _mm512_add_epi64(a.limb[k + 1], c);
  }
}

// a − m when that is ≥ 0, else a, lane by lane; a normalised and below 2^383.
PROOFLAB_IFMA_INLINE FpX8 subtract_if_not_below(const FpX8& a, const Limbs48& m) {
  FpX8 d;
  for (std::size_t k = 0; k < kLimbs; ++k) d.limb[k] = _mm512_sub_epi64(a.limb[k], splat(m[k]));
  carry_signed(d);
  const __mmask8 negative = _mm512_cmplt_epi64_mask(d.limb[kLimbs - 1], _mm512_setzero_si512());
  for (std::size_t k = 0; k < kLimbs; ++k)
    d.limb[k] = _mm512_mask_blend_epi64(negative, d.limb[k], a.limb[k]);
  return d;
}

}  // namespace x8

// Word k of lane j at words[8k + j] (six 64-byte rows, 64-byte aligned): canonical Fp limbs.
PROOFLAB_IFMA_INLINE FpX8 fpx8_load(const std::uint64_t* words) {
  const __m512i mask = x8::splat(x8::kMask48);
  __m512i w[6];
  for (std::size_t k = 0; k < 6; ++k) w[k] = _mm512_load_si512(words + 8 * k);
  FpX8 r;
  for (std::size_t half = 0; half < 2; ++half) {  // 3 words = 4 limbs, twice
    const __m512i* v = w + 3 * half;
    __m512i* l = r.limb + 4 * half;
    l[0] = _mm512_and_si512(v[0], mask);
    l[1] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(v[0], 48), _mm512_slli_epi64(v[1], 16)), mask);
    l[2] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(v[1], 32), _mm512_slli_epi64(v[2], 32)), mask);
    l[3] = _mm512_srli_epi64(v[2], 16);
  }
  return r;
}

// The inverse of fpx8_load for normalised values below 2^384.
PROOFLAB_IFMA_INLINE void fpx8_store(const FpX8& a, std::uint64_t* words) {
  for (std::size_t half = 0; half < 2; ++half) {
    const __m512i* l = a.limb + 4 * half;
    std::uint64_t* w = words + 24 * half;
    _mm512_store_si512(w, _mm512_or_si512(l[0], _mm512_slli_epi64(l[1], 48)));
    _mm512_store_si512(w + 8, _mm512_or_si512(_mm512_srli_epi64(l[1], 16), _mm512_slli_epi64(l[2], 32)));
    _mm512_store_si512(w + 16, _mm512_or_si512(_mm512_srli_epi64(l[2], 32), _mm512_slli_epi64(l[3], 16)));
  }
}

// The same Fp in every lane.
PROOFLAB_IFMA_INLINE FpX8 fpx8_splat(const Fp& a) {
  const x8::Limbs48 l = x8::limbs48(a.mont);
  FpX8 r;
  for (std::size_t k = 0; k < x8::kLimbs; ++k) r.limb[k] = x8::splat(l[k]);
  return r;
}

// a·b·2^−384 mod p, in [0, 2p) for a < 4p, b < 2p. Coarsely integrated operand scanning:
// row i adds a_i·b, then q·p with q = −t₀/p mod 2^48, and drops the (now zero) low limb.
// lo[j] holds 16 × the low halves of column j, hi[j] the high halves and carries.
PROOFLAB_IFMA_INLINE FpX8 fpx8_mul(const FpX8& a, const FpX8& b) {
  using namespace x8;
  const __m512i zero = _mm512_setzero_si512();
  const __m512i mask = splat(kMask48);
  __m512i b16[kLimbs], lo[kLimbs], hi[kLimbs + 1];
  for (std::size_t j = 0; j < kLimbs; ++j) {
    b16[j] = _mm512_slli_epi64(b.limb[j], 4);
    lo[j] = zero;
  }
  for (auto& h : hi) h = zero;
  for (std::size_t i = 0; i < kLimbs; ++i) {
    const __m512i ai = a.limb[i];
    for (std::size_t j = 0; j < kLimbs; ++j) {
      lo[j] = _mm512_madd52lo_epu64(lo[j], ai, b16[j]);
      hi[j + 1] = _mm512_madd52hi_epu64(hi[j + 1], ai, b16[j]);
    }
    __m512i t0 = _mm512_add_epi64(_mm512_srli_epi64(lo[0], 4), hi[0]);
    const __m512i q = _mm512_and_si512(_mm512_madd52lo_epu64(zero, t0, splat(kPInv48)), mask);
    for (std::size_t j = 0; j < kLimbs; ++j) {
      lo[j] = _mm512_madd52lo_epu64(lo[j], q, splat(kP16[j]));
      hi[j + 1] = _mm512_madd52hi_epu64(hi[j + 1], q, splat(kP16[j]));
    }
    t0 = _mm512_add_epi64(_mm512_srli_epi64(lo[0], 4), hi[0]);  // ≡ 0 mod 2^48
    const __m512i carry = _mm512_srli_epi64(t0, 48);
    for (std::size_t j = 0; j + 1 < kLimbs; ++j) lo[j] = lo[j + 1];
    lo[kLimbs - 1] = zero;
    hi[0] = _mm512_add_epi64(hi[1], carry);
    for (std::size_t j = 1; j < kLimbs; ++j) hi[j] = hi[j + 1];
    hi[kLimbs] = zero;
  }
  FpX8 r;
  __m512i carry = zero;
  for (std::size_t j = 0; j < kLimbs; ++j) {
    const __m512i t = _mm512_add_epi64(_mm512_add_epi64(_mm512_srli_epi64(lo[j], 4), hi[j]), carry);
    carry = _mm512_srli_epi64(t, 48);
    r.limb[j] = _mm512_and_si512(t, mask);
  }
  return r;  // the bound keeps the last carry zero
}

// a + b (no reduction: the bound is the sum of the operands' bounds, below 2^383).
PROOFLAB_IFMA_INLINE FpX8 fpx8_add(const FpX8& a, const FpX8& b) {
  FpX8 r;
  for (std::size_t k = 0; k < x8::kLimbs; ++k) r.limb[k] = _mm512_add_epi64(a.limb[k], b.limb[k]);
  x8::carry_signed(r);
  return r;
}

// a + m − b for b ≤ m (m = p or 2p, given as its limbs): in (0, bound(a) + m).
PROOFLAB_IFMA_INLINE FpX8 fpx8_sub(const FpX8& a, const FpX8& b, const x8::Limbs48& m) {
  FpX8 r;
  for (std::size_t k = 0; k < x8::kLimbs; ++k)
    r.limb[k] = _mm512_sub_epi64(_mm512_add_epi64(a.limb[k], x8::splat(m[k])), b.limb[k]);
  x8::carry_signed(r);
  return r;
}

// [0, 4p) to [0, p).
PROOFLAB_IFMA_INLINE FpX8 fpx8_canonical(const FpX8& a) {
  return x8::subtract_if_not_below(x8::subtract_if_not_below(a, x8::k2P), x8::kP);
}

#endif  // __x86_64__

}  // namespace prooflab::field
