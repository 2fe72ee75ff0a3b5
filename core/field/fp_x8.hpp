// Eight elements of Fp side by side in AVX-512 registers, for batch arithmetic with the IFMA
// instructions (vpmadd52luq / vpmadd52huq: the low / high 52 bits of a 52 × 52-bit product,
// added to a 64-bit lane). Used by the MSM's 8-lane batch-affine adder
// (core/msm/batch_affine_x8.cpp), directly and through Fp2X8 (fp2_x8.hpp).
//
// Representation. Limb k of all eight elements is one register; an element is the *same
// integer* as Fp's Montgomery limbs (a·2^384 mod p), cut into eight limbs of 52 bits (IFMA's
// radix: the high half of a product lands exactly on the next limb). Eight limbs hold 416
// bits, but Fp's R is 2^384 = 2^(7·52 + 20), so the Montgomery reduction runs seven
// word-by-word rounds of 52 bits and one of 20 bits, and then shifts the result right by
// 20 bits. That keeps products meaning what Fp's products mean, and values move between
// Fp and FpX8 by shifts alone (no conversion multiplications, no second representation in
// memory).
//
// Lazy values: x8_mul returns [0, 2p) for a < 4p, b < 2p (p < 2^381, so
// (8p² + 2^384·p)/2^384 < 2p); x8_add / x8_sub return the stated bounds; x8_canonical brings
// [0, 4p) to [0, p), the only form Fp and the curve code accept. Limbs are kept normalised (< 2^52) between operations:
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
inline constexpr unsigned kRadixBits = 52;
inline constexpr std::uint64_t kMask52 = (std::uint64_t{1} << kRadixBits) - 1;
// 2^384 = 2^(7·52) · 2^20: seven full reduction rounds, then one of this many bits.
inline constexpr unsigned kLastRoundBits = 384 - 7 * kRadixBits;
using Limbs52 = std::array<std::uint64_t, kLimbs>;

// k·v of a 6-word integer in radix 2^52 (k·v < 2^384).
constexpr Limbs52 limbs52(const BigInt<6>& v, std::uint64_t k = 1) {
  Limbs52 out{};
  for (std::size_t i = 0; i < kLimbs; ++i) {  // bits 52i .. 52i + 51
    const std::size_t bit = kRadixBits * i, word = bit / 64, shift = bit % 64;
    std::uint64_t x = v[word] >> shift;
    if (shift > 64 - kRadixBits && word + 1 < 6) x |= v[word + 1] << (64 - shift);
    out[i] = x & kMask52;
  }
  std::uint64_t carry = 0;
  for (auto& l : out) {
    const unsigned __int128 t = static_cast<unsigned __int128>(l) * k + carry;
    l = static_cast<std::uint64_t>(t) & kMask52;
    carry = static_cast<std::uint64_t>(t >> kRadixBits);
  }
  return out;
}

// Constants the vector code reads from memory (broadcast operands), hence arrays.
alignas(64) inline constexpr Limbs52 kP = limbs52(FpParams::kModulus);
alignas(64) inline constexpr Limbs52 k2P = limbs52(FpParams::kModulus, 2);
inline constexpr std::uint64_t kPInv52 = FpParams::kInv & kMask52;  // −p⁻¹ mod 2^52
static_assert(limbs52(FpParams::kModulus, 8)[kLimbs - 1] < (std::uint64_t{1} << 20),
              "8p must stay below 2^384 (mul's bound)");

}  // namespace x8

#if defined(__x86_64__)

// Eight Fp values, lane j of every limb register being value j.
struct FpX8 {
  __m512i limb[x8::kLimbs];

  // Word k of lane j at words[8k + j] (six 64-byte rows, 64-byte aligned): Fp's limbs.
  PROOFLAB_IFMA_INLINE static FpX8 load(const std::uint64_t* words);
  // The same Fp in every lane.
  PROOFLAB_IFMA_INLINE static FpX8 splat(const Fp& a);
};

namespace x8 {

PROOFLAB_IFMA_INLINE __m512i splat(std::uint64_t v) {
  return _mm512_set1_epi64(static_cast<long long>(v));
}

// t + low / high 52 bits of q·c, with c broadcast from memory. The modulus' eight limbs are
// the second operand of half of mul's 264 multiply-adds; as register operands they push
// other values out to the stack (BM_msm_g1/16 4.4–4.7 adds/point with _mm512_set1_epi64
// against 4.0–4.05 with this), and clang hoists a set1 into a register whatever the
// pressure.
PROOFLAB_IFMA_INLINE __m512i madd_lo_broadcast(__m512i t, __m512i q, const std::uint64_t* c) {
  asm("vpmadd52luq %[c]%{1to8%}, %[q], %[t]" : [t] "+v"(t) : [q] "v"(q), [c] "m"(*c));
  return t;
}
PROOFLAB_IFMA_INLINE __m512i madd_hi_broadcast(__m512i t, __m512i q, const std::uint64_t* c) {
  asm("vpmadd52huq %[c]%{1to8%}, %[q], %[t]" : [t] "+v"(t) : [q] "v"(q), [c] "m"(*c));
  return t;
}

// t[0..8] += q·p (t: the columns from the one q clears).
PROOFLAB_IFMA_INLINE void add_multiple_of_p(__m512i* t, __m512i q) {
  for (std::size_t j = 0; j < kLimbs; ++j) {
    t[j] = madd_lo_broadcast(t[j], q, &kP[j]);
    t[j + 1] = madd_hi_broadcast(t[j + 1], q, &kP[j]);
  }
}

// Carries every limb's bits above 52 into the next one (arithmetically: limbs may be
// negative after a subtraction; the top limb keeps the sign).
PROOFLAB_IFMA_INLINE void carry_signed(FpX8& a) {
  const __m512i mask = splat(kMask52);
  for (std::size_t k = 0; k + 1 < kLimbs; ++k) {
    const __m512i c = _mm512_srai_epi64(a.limb[k], kRadixBits);
    a.limb[k] = _mm512_and_si512(a.limb[k], mask);
    a.limb[k + 1] = _mm512_add_epi64(a.limb[k + 1], c);
  }
}

// a − m when that is ≥ 0, else a, lane by lane; a normalised.
PROOFLAB_IFMA_INLINE FpX8 subtract_if_not_below(const FpX8& a, const Limbs52& m) {
  FpX8 d;
  for (std::size_t k = 0; k < kLimbs; ++k) d.limb[k] = _mm512_sub_epi64(a.limb[k], splat(m[k]));
  carry_signed(d);
  const __mmask8 negative = _mm512_cmplt_epi64_mask(d.limb[kLimbs - 1], _mm512_setzero_si512());
  for (std::size_t k = 0; k < kLimbs; ++k)
    d.limb[k] = _mm512_mask_blend_epi64(negative, d.limb[k], a.limb[k]);
  return d;
}

}  // namespace x8

PROOFLAB_IFMA_INLINE FpX8 FpX8::load(const std::uint64_t* words) {
  const __m512i mask = x8::splat(x8::kMask52);
  __m512i w[6];
  for (std::size_t k = 0; k < 6; ++k) w[k] = _mm512_load_si512(words + 8 * k);
  FpX8 r;
  for (std::size_t i = 0; i < x8::kLimbs; ++i) {  // bits 52i .. 52i + 51 (no lambda: it
    const std::size_t bit = x8::kRadixBits * i;   // would lose the target attribute)
    const std::size_t word = bit / 64;
    const unsigned shift = bit % 64;
    __m512i x = _mm512_srli_epi64(w[word], shift);
    if (shift > 64 - x8::kRadixBits && word + 1 < 6)
      x = _mm512_or_si512(x, _mm512_slli_epi64(w[word + 1], 64 - shift));
    r.limb[i] = _mm512_and_si512(x, mask);
  }
  return r;
}

// The inverse of FpX8::load for normalised values below 2^384.
PROOFLAB_IFMA_INLINE void x8_store(const FpX8& a, std::uint64_t* words) {
  for (std::size_t k = 0; k < 6; ++k) {  // word k = bits 64k .. 64k + 63
    __m512i w = _mm512_setzero_si512();
    for (std::size_t i = 0; i < x8::kLimbs; ++i) {
      const int offset = static_cast<int>(x8::kRadixBits * i) - static_cast<int>(64 * k);
      if (offset <= -static_cast<int>(x8::kRadixBits) || offset >= 64) continue;
      w = _mm512_or_si512(w, offset >= 0 ? _mm512_slli_epi64(a.limb[i], offset)
                                         : _mm512_srli_epi64(a.limb[i], -offset));
    }
    _mm512_store_si512(words + 8 * k, w);
  }
}

PROOFLAB_IFMA_INLINE FpX8 FpX8::splat(const Fp& a) {
  const x8::Limbs52 l = x8::limbs52(a.mont);
  FpX8 r;
  for (std::size_t k = 0; k < x8::kLimbs; ++k) r.limb[k] = x8::splat(l[k]);
  return r;
}

// a·b·2^−384 mod p, in [0, 2p) for a < 4p, b < 2p. Separated operand scanning with the
// reduction interleaved: row i adds a_i·b into columns i.., then q·p with q = −t_i/p mod
// 2^52 (mod 2^20 in the last row), which clears column i's low bits, and carries them on.
// The result is columns 7..15 shifted right by 20 bits. Every column index is a constant
// once the rows are unrolled, so the columns live in registers: written as a sliding
// window (t[j] = t[j + 1]) clang kept it in memory and the multiplication took twice as
// long (78–84 against 41 ns for eight lanes on the dev VM).
PROOFLAB_IFMA_INLINE FpX8 x8_mul(const FpX8& a, const FpX8& b) {
  using namespace x8;
  const __m512i zero = _mm512_setzero_si512();
  const __m512i mask = splat(kMask52);
  __m512i t[2 * kLimbs];
  for (auto& x : t) x = zero;
#pragma GCC unroll 8
  for (std::size_t i = 0; i < kLimbs; ++i) {
#pragma GCC unroll 8
    for (std::size_t j = 0; j < kLimbs; ++j) {
      t[i + j] = _mm512_madd52lo_epu64(t[i + j], a.limb[i], b.limb[j]);
      t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], a.limb[i], b.limb[j]);
    }
    __m512i q = _mm512_madd52lo_epu64(zero, t[i], splat(kPInv52));
    if (i + 1 == kLimbs) q = _mm512_and_si512(q, splat((std::uint64_t{1} << kLastRoundBits) - 1));
    add_multiple_of_p(t + i, q);
    if (i + 1 < kLimbs)  // column i is now a multiple of 2^52
      t[i + 1] = _mm512_add_epi64(t[i + 1], _mm512_srli_epi64(t[i], kRadixBits));
  }
  __m512i* top = t + kLimbs - 1;  // columns 7..15; column 7's low 20 bits are now zero
  for (std::size_t j = 0; j < kLimbs; ++j) {
    top[j + 1] = _mm512_add_epi64(top[j + 1], _mm512_srli_epi64(top[j], kRadixBits));
    top[j] = _mm512_and_si512(top[j], mask);
  }
  FpX8 r;
  for (std::size_t j = 0; j < kLimbs; ++j)
    r.limb[j] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(top[j], kLastRoundBits),
                                                 _mm512_slli_epi64(top[j + 1], kRadixBits - kLastRoundBits)),
                                 mask);
  return r;  // the bound keeps column 15 below 2^20 after the shift: nothing is lost
}

// a², as x8_mul(a, a) (a < 2p); the name lets generic code square Fp2X8 its own way.
PROOFLAB_IFMA_INLINE FpX8 x8_sqr(const FpX8& a) { return x8_mul(a, a); }

// a + b (no reduction: the bound is the sum of the operands' bounds).
PROOFLAB_IFMA_INLINE FpX8 x8_add(const FpX8& a, const FpX8& b) {
  FpX8 r;
  for (std::size_t k = 0; k < x8::kLimbs; ++k) r.limb[k] = _mm512_add_epi64(a.limb[k], b.limb[k]);
  x8::carry_signed(r);
  return r;
}

// a + m − b for b ≤ m (m = p or 2p, given as its limbs): in (0, bound(a) + m).
PROOFLAB_IFMA_INLINE FpX8 x8_sub(const FpX8& a, const FpX8& b, const x8::Limbs52& m) {
  FpX8 r;
  for (std::size_t k = 0; k < x8::kLimbs; ++k)
    r.limb[k] = _mm512_sub_epi64(_mm512_add_epi64(a.limb[k], x8::splat(m[k])), b.limb[k]);
  x8::carry_signed(r);
  return r;
}

// p − a in the lanes of `lanes`, a in the others; a ≤ p.
PROOFLAB_IFMA_INLINE FpX8 x8_negate_where(__mmask8 lanes, const FpX8& a) {
  FpX8 n;
  for (std::size_t k = 0; k < x8::kLimbs; ++k)
    n.limb[k] = _mm512_sub_epi64(x8::splat(x8::kP[k]), a.limb[k]);
  x8::carry_signed(n);
  for (std::size_t k = 0; k < x8::kLimbs; ++k)
    n.limb[k] = _mm512_mask_blend_epi64(lanes, a.limb[k], n.limb[k]);
  return n;
}

// b in the lanes of `lanes`, a in the others.
PROOFLAB_IFMA_INLINE FpX8 x8_select(__mmask8 lanes, const FpX8& a, const FpX8& b) {
  FpX8 r;
  for (std::size_t k = 0; k < x8::kLimbs; ++k)
    r.limb[k] = _mm512_mask_blend_epi64(lanes, a.limb[k], b.limb[k]);
  return r;
}

// [0, 4p) to [0, p).
PROOFLAB_IFMA_INLINE FpX8 x8_canonical(const FpX8& a) {
  return x8::subtract_if_not_below(x8::subtract_if_not_below(a, x8::k2P), x8::kP);
}

#endif  // __x86_64__

}  // namespace prooflab::field
