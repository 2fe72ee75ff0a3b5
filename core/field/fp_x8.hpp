// Eight elements of Fp side by side in AVX-512 registers, for batch arithmetic with the IFMA
// instructions (vpmadd52luq / vpmadd52huq: the low / high 52 bits of a 52 × 52-bit product,
// added to a 64-bit lane). Used by the MSM's 8-lane batch-affine adder
// (core/msm/batch_affine_x8.cpp), directly and through Fp2X8 (fp2_x8.hpp), and by the NTT's
// 8-lane butterflies (core/poly/ntt_x8.cpp).
//
// Representation (MontX8<Params>: FpX8, FrX8). Limb k of all eight elements is one register;
// an element is the *same integer* as the field's Montgomery limbs (a·R mod p), cut into
// 52-bit limbs (IFMA's radix: the high half of a product lands exactly on the next limb):
// eight for Fp, five for Fr. Those hold 416 / 260 bits, but R is 2^384 = 2^(7·52 + 20) /
// 2^256 = 2^(4·52 + 48), so the Montgomery reduction runs 7 / 4 word-by-word rounds of 52
// bits and one of 20 / 48 bits, and then shifts the result right by that much. That keeps
// products meaning what the field's products mean, and values move between the field and
// its 8-lane form by shifts alone (no conversion multiplications, no second representation
// in memory).
//
// Lazy values (Fp): x8_mul returns [0, 2p) for a < 4p, b < 2p (p < 2^381, so
// (8p² + 2^384·p)/2^384 < 2p); x8_add / x8_sub return the stated bounds; x8_canonical brings
// [0, 4p) to [0, p), the only form Fp and the curve code accept. Fr has no such room (r is
// above R/8), so FrX8 products are reduced to [0, r) at once. Limbs are kept normalised (< 2^52) between operations:
// IFMA reads only the low 52 bits of its inputs.
//
// Every function needs AVX-512F and AVX512-IFMA and is compiled for them by attribute (the
// rest of the program is not); call them only where ifma_available() is true.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "core/field/fp.hpp"
#include "core/field/fr.hpp"

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

inline constexpr unsigned kRadixBits = 52;
inline constexpr std::uint64_t kMask52 = (std::uint64_t{1} << kRadixBits) - 1;

// The 8-lane layout of a MontField<Params> (FpParams, FrParams): its R = 2^(64·words) is
// 2^((limbs − 1)·52 + last-round bits), so the reduction runs limbs − 1 full rounds and one
// of kLastRoundBits.
template <class Params>
struct Layout {
  static constexpr std::size_t kWords = Params::kLimbs;                                 // 6, 4
  static constexpr std::size_t kLimbs = (Params::kBits + kRadixBits - 1) / kRadixBits;  // 8, 5
  static constexpr unsigned kLastRoundBits =
      static_cast<unsigned>(64 * kWords - (kLimbs - 1) * kRadixBits);                   // 20, 48
  static_assert(kLastRoundBits > 0 && kLastRoundBits <= kRadixBits);
  using Limbs = std::array<std::uint64_t, kLimbs>;

  // k·v of a kWords-word integer in radix 2^52 (k·v < 2^(52·kLimbs)).
  static constexpr Limbs limbs(const BigInt<kWords>& v, std::uint64_t k = 1) {
    Limbs out{};
    for (std::size_t i = 0; i < kLimbs; ++i) {  // bits 52i .. 52i + 51
      const std::size_t bit = kRadixBits * i, word = bit / 64, shift = bit % 64;
      std::uint64_t x = word < kWords ? v[word] >> shift : 0;
      if (shift > 64 - kRadixBits && word + 1 < kWords) x |= v[word + 1] << (64 - shift);
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
  alignas(64) static constexpr Limbs kP = limbs(Params::kModulus);
  alignas(64) static constexpr Limbs k2P = limbs(Params::kModulus, 2);
  static constexpr std::uint64_t kPInv52 = Params::kInv & kMask52;  // −p⁻¹ mod 2^52
  // Lazy [0, 2p) values need 8p < R (mul's bound): true for Fp (p < 2^381 = R/8), false for
  // Fr (r ≈ 2^254.9, R = 2^256), whose products are reduced to [0, r) at once instead.
  static constexpr bool kLazy = (limbs(Params::kModulus, 8)[kLimbs - 1] >> kLastRoundBits) == 0;
};

// Fp's constants under their short names (the G1/G2 adder and Fp2X8 use them).
inline constexpr const auto& kP = Layout<FpParams>::kP;
inline constexpr const auto& k2P = Layout<FpParams>::k2P;
using Limbs52 = Layout<FpParams>::Limbs;
static_assert(Layout<FpParams>::kLazy && !Layout<FrParams>::kLazy);

}  // namespace x8

#if defined(__x86_64__)

// Eight values of MontField<Params>, lane j of every limb register being value j.
template <class Params>
struct MontX8 {
  using L = x8::Layout<Params>;
  __m512i limb[L::kLimbs];

  // Word k of lane j at words[8k + j] (kWords 64-byte rows, 64-byte aligned): the field's
  // Montgomery limbs.
  PROOFLAB_IFMA_INLINE static MontX8 load(const std::uint64_t* words);
  // The same from registers: w[k] holds word k of the eight values.
  PROOFLAB_IFMA_INLINE static MontX8 from_words(const __m512i* w);
  // The same value in every lane.
  PROOFLAB_IFMA_INLINE static MontX8 splat(const MontField<Params>& a);
};
using FpX8 = MontX8<FpParams>;
using FrX8 = MontX8<FrParams>;

namespace x8 {

PROOFLAB_IFMA_INLINE __m512i splat(std::uint64_t v) {
  return _mm512_set1_epi64(static_cast<long long>(v));
}

// t + low / high 52 bits of q·c, with c broadcast from memory. The modulus' limbs are the
// second operand of half of mul's multiply-adds; as register operands they push other
// values out to the stack (BM_msm_g1/16 4.4–4.7 adds/point with _mm512_set1_epi64 against
// 4.0–4.05 with this), and clang hoists a set1 into a register whatever the pressure.
PROOFLAB_IFMA_INLINE __m512i madd_lo_broadcast(__m512i t, __m512i q, const std::uint64_t* c) {
  asm("vpmadd52luq %[c]%{1to8%}, %[q], %[t]" : [t] "+v"(t) : [q] "v"(q), [c] "m"(*c));
  return t;
}
PROOFLAB_IFMA_INLINE __m512i madd_hi_broadcast(__m512i t, __m512i q, const std::uint64_t* c) {
  asm("vpmadd52huq %[c]%{1to8%}, %[q], %[t]" : [t] "+v"(t) : [q] "v"(q), [c] "m"(*c));
  return t;
}

// t[0..kLimbs] += q·p (t: the columns from the one q clears).
template <class Params>
PROOFLAB_IFMA_INLINE void add_multiple_of_p(__m512i* t, __m512i q) {
  using L = Layout<Params>;
  for (std::size_t j = 0; j < L::kLimbs; ++j) {
    t[j] = madd_lo_broadcast(t[j], q, &L::kP[j]);
    t[j + 1] = madd_hi_broadcast(t[j + 1], q, &L::kP[j]);
  }
}

// Carries every limb's bits above 52 into the next one (arithmetically: limbs may be
// negative after a subtraction; the top limb keeps the sign).
template <class Params>
PROOFLAB_IFMA_INLINE void carry_signed(MontX8<Params>& a) {
  const __m512i mask = splat(kMask52);
  for (std::size_t k = 0; k + 1 < Layout<Params>::kLimbs; ++k) {
    const __m512i c = _mm512_srai_epi64(a.limb[k], kRadixBits);
    a.limb[k] = _mm512_and_si512(a.limb[k], mask);
    a.limb[k + 1] = _mm512_add_epi64(a.limb[k + 1], c);
  }
}

// a − m when that is ≥ 0, else a, lane by lane; a normalised.
template <class Params>
PROOFLAB_IFMA_INLINE MontX8<Params> subtract_if_not_below(const MontX8<Params>& a,
                                                          const typename Layout<Params>::Limbs& m) {
  constexpr std::size_t n = Layout<Params>::kLimbs;
  MontX8<Params> d;
  for (std::size_t k = 0; k < n; ++k) d.limb[k] = _mm512_sub_epi64(a.limb[k], splat(m[k]));
  carry_signed(d);
  const __mmask8 negative = _mm512_cmplt_epi64_mask(d.limb[n - 1], _mm512_setzero_si512());
  for (std::size_t k = 0; k < n; ++k)
    d.limb[k] = _mm512_mask_blend_epi64(negative, d.limb[k], a.limb[k]);
  return d;
}

}  // namespace x8

template <class Params>
PROOFLAB_IFMA_INLINE MontX8<Params> MontX8<Params>::load(const std::uint64_t* words) {
  __m512i w[L::kWords];
  for (std::size_t k = 0; k < L::kWords; ++k) w[k] = _mm512_load_si512(words + 8 * k);
  return from_words(w);
}

template <class Params>
PROOFLAB_IFMA_INLINE MontX8<Params> MontX8<Params>::from_words(const __m512i* w) {
  const __m512i mask = x8::splat(x8::kMask52);
  MontX8 r;
  for (std::size_t i = 0; i < L::kLimbs; ++i) {  // bits 52i .. 52i + 51 (no lambda: it
    const std::size_t bit = x8::kRadixBits * i;  // would lose the target attribute)
    const std::size_t word = bit / 64;
    const unsigned shift = bit % 64;
    __m512i x = _mm512_srli_epi64(w[word], shift);
    if (shift > 64 - x8::kRadixBits && word + 1 < L::kWords)
      x = _mm512_or_si512(x, _mm512_slli_epi64(w[word + 1], 64 - shift));
    r.limb[i] = _mm512_and_si512(x, mask);
  }
  return r;
}

// The inverse of MontX8::from_words for normalised values below R.
template <class Params>
PROOFLAB_IFMA_INLINE void x8_to_words(const MontX8<Params>& a, __m512i* w) {
  using L = x8::Layout<Params>;
  for (std::size_t k = 0; k < L::kWords; ++k) {  // word k = bits 64k .. 64k + 63
    w[k] = _mm512_setzero_si512();
    for (std::size_t i = 0; i < L::kLimbs; ++i) {
      const int offset = static_cast<int>(x8::kRadixBits * i) - static_cast<int>(64 * k);
      if (offset <= -static_cast<int>(x8::kRadixBits) || offset >= 64) continue;
      w[k] = _mm512_or_si512(w[k], offset >= 0 ? _mm512_slli_epi64(a.limb[i], offset)
                                               : _mm512_srli_epi64(a.limb[i], -offset));
    }
  }
}

// The inverse of MontX8::load for normalised values below R.
template <class Params>
PROOFLAB_IFMA_INLINE void x8_store(const MontX8<Params>& a, std::uint64_t* words) {
  __m512i w[x8::Layout<Params>::kWords];
  x8_to_words(a, w);
  for (std::size_t k = 0; k < x8::Layout<Params>::kWords; ++k)
    _mm512_store_si512(words + 8 * k, w[k]);
}

template <class Params>
PROOFLAB_IFMA_INLINE MontX8<Params> MontX8<Params>::splat(const MontField<Params>& a) {
  const typename L::Limbs l = L::limbs(a.mont);
  MontX8 r;
  for (std::size_t k = 0; k < L::kLimbs; ++k) r.limb[k] = x8::splat(l[k]);
  return r;
}

// a·b·R^−1 mod p. Lazy layouts (Fp): in [0, 2p) for a < 4p, b < 2p. Others (Fr): in [0, p)
// for a, b < p (the raw result is below (p/R + 1)·p < 2p; one conditional subtraction).
// Separated operand scanning with the reduction interleaved: row i adds a_i·b into columns
// i.., then q·p with q = −t_i/p mod 2^52 (mod 2^kLastRoundBits in the last row), which clears
// column i's low bits, and carries them on. The result is the top kLimbs + 1 columns shifted
// right by kLastRoundBits. Every column index is a constant once the rows are unrolled, so
// the columns live in registers: written as a sliding window (t[j] = t[j + 1]) clang kept it
// in memory and the Fp multiplication took twice as long (78–84 against 41 ns for eight
// lanes on the dev VM).
template <class Params>
PROOFLAB_IFMA_INLINE MontX8<Params> x8_mul(const MontX8<Params>& a, const MontX8<Params>& b) {
  using namespace x8;
  using L = Layout<Params>;
  constexpr std::size_t n = L::kLimbs;
  const __m512i zero = _mm512_setzero_si512();
  const __m512i mask = splat(kMask52);
  __m512i t[2 * n];
  for (auto& x : t) x = zero;
#pragma GCC unroll 8
  for (std::size_t i = 0; i < n; ++i) {
#pragma GCC unroll 8
    for (std::size_t j = 0; j < n; ++j) {
      t[i + j] = _mm512_madd52lo_epu64(t[i + j], a.limb[i], b.limb[j]);
      t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], a.limb[i], b.limb[j]);
    }
    __m512i q = _mm512_madd52lo_epu64(zero, t[i], splat(L::kPInv52));
    if (i + 1 == n) q = _mm512_and_si512(q, splat((std::uint64_t{1} << L::kLastRoundBits) - 1));
    add_multiple_of_p<Params>(t + i, q);
    if (i + 1 < n)  // column i is now a multiple of 2^52
      t[i + 1] = _mm512_add_epi64(t[i + 1], _mm512_srli_epi64(t[i], kRadixBits));
  }
  __m512i* top = t + n - 1;  // columns n−1 .. 2n−1; column n−1's low bits are now zero
  for (std::size_t j = 0; j < n; ++j) {
    top[j + 1] = _mm512_add_epi64(top[j + 1], _mm512_srli_epi64(top[j], kRadixBits));
    top[j] = _mm512_and_si512(top[j], mask);
  }
  MontX8<Params> r;
  for (std::size_t j = 0; j < n; ++j)
    r.limb[j] = _mm512_and_si512(
        _mm512_or_si512(_mm512_srli_epi64(top[j], L::kLastRoundBits),
                        _mm512_slli_epi64(top[j + 1], kRadixBits - L::kLastRoundBits)),
        mask);
  if constexpr (!L::kLazy) r = subtract_if_not_below(r, L::kP);
  return r;  // the bound keeps the top column below 2^kLastRoundBits: nothing is lost
}

// a², as x8_mul(a, a); the name lets generic code square Fp2X8 its own way.
template <class Params>
PROOFLAB_IFMA_INLINE MontX8<Params> x8_sqr(const MontX8<Params>& a) { return x8_mul(a, a); }

// a + b (no reduction: the bound is the sum of the operands' bounds).
template <class Params>
PROOFLAB_IFMA_INLINE MontX8<Params> x8_add(const MontX8<Params>& a, const MontX8<Params>& b) {
  MontX8<Params> r;
  for (std::size_t k = 0; k < x8::Layout<Params>::kLimbs; ++k)
    r.limb[k] = _mm512_add_epi64(a.limb[k], b.limb[k]);
  x8::carry_signed(r);
  return r;
}

// a + m − b for b ≤ m (m = p or 2p, given as its limbs): in (0, bound(a) + m).
template <class Params>
PROOFLAB_IFMA_INLINE MontX8<Params> x8_sub(const MontX8<Params>& a, const MontX8<Params>& b,
                                           const typename x8::Layout<Params>::Limbs& m) {
  MontX8<Params> r;
  for (std::size_t k = 0; k < x8::Layout<Params>::kLimbs; ++k)
    r.limb[k] = _mm512_sub_epi64(_mm512_add_epi64(a.limb[k], x8::splat(m[k])), b.limb[k]);
  x8::carry_signed(r);
  return r;
}

// p − a in the lanes of `lanes`, a in the others; a ≤ p.
template <class Params>
PROOFLAB_IFMA_INLINE MontX8<Params> x8_negate_where(__mmask8 lanes, const MontX8<Params>& a) {
  using L = x8::Layout<Params>;
  MontX8<Params> n;
  for (std::size_t k = 0; k < L::kLimbs; ++k)
    n.limb[k] = _mm512_sub_epi64(x8::splat(L::kP[k]), a.limb[k]);
  x8::carry_signed(n);
  for (std::size_t k = 0; k < L::kLimbs; ++k)
    n.limb[k] = _mm512_mask_blend_epi64(lanes, a.limb[k], n.limb[k]);
  return n;
}

// b in the lanes of `lanes`, a in the others.
template <class Params>
PROOFLAB_IFMA_INLINE MontX8<Params> x8_select(__mmask8 lanes, const MontX8<Params>& a,
                                              const MontX8<Params>& b) {
  MontX8<Params> r;
  for (std::size_t k = 0; k < x8::Layout<Params>::kLimbs; ++k)
    r.limb[k] = _mm512_mask_blend_epi64(lanes, a.limb[k], b.limb[k]);
  return r;
}

// [0, 4p) to [0, p).
template <class Params>
PROOFLAB_IFMA_INLINE MontX8<Params> x8_canonical(const MontX8<Params>& a) {
  using L = x8::Layout<Params>;
  return x8::subtract_if_not_below(x8::subtract_if_not_below(a, L::k2P), L::kP);
}

#endif  // __x86_64__

}  // namespace prooflab::field
