// A prime field in Montgomery form over 64-bit limbs, generic in its parameters (the way
// sppark's mont_t<N, MOD, M0, RR, ONE> is): Fp and Fr are aliases that pick a Params type.
//
// Multiplication is CIOS Montgomery multiplication in its "no-carry" form: when the top limb
// of the modulus is below (2^64 - 1)/2 - 1 (true for both BLS12-381 moduli), the running
// carry of the outer loop never overflows a limb, which saves one addition chain per row
// (Gautam Botrel et al., "Faster Montgomery multiplication", gnark/goff notes, 2020).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>

#include "core/field/bigint.hpp"

#define PROOFLAB_INLINE inline __attribute__((always_inline))

namespace prooflab::field {

// Params must provide:
//   kLimbs, kBits, kBytes          sizes
//   kModulus                       the modulus, canonical limbs
//   kOne, kR2                      R mod m and R^2 mod m (R = 2^(64 kLimbs))
//   kInv                           -m^-1 mod 2^64
template <class Params>
class MontField {
 public:
  static constexpr std::size_t kLimbs = Params::kLimbs;
  static constexpr std::size_t kBits = Params::kBits;
  static constexpr std::size_t kBytes = Params::kBytes;
  using Limbs = BigInt<kLimbs>;
  static constexpr Limbs kModulus = Params::kModulus;
  static_assert(kModulus[kLimbs - 1] < 0x7ffffffffffffffeULL,
                "the no-carry CIOS multiplication needs a spare top bit in the modulus");

  // Limbs of the Montgomery representation a·R mod m. Public so that kernels, serialisers
  // and the GPU upload path can read them without copies; arithmetic keeps it reduced.
  Limbs mont{};

  constexpr MontField() = default;

  static constexpr MontField zero() { return MontField{}; }
  static constexpr MontField one() { return from_mont(Params::kOne); }
  static constexpr MontField from_mont(const Limbs& m) {
    MontField r;
    r.mont = m;
    return r;
  }
  // From a canonical integer; the caller guarantees v < m (checked by from_canonical_checked).
  static constexpr MontField from_canonical(const Limbs& v) {
    MontField r;
    mont_mul(r.mont, v, Params::kR2);
    return r;
  }
  static constexpr std::optional<MontField> from_canonical_checked(const Limbs& v) {
    if (bigint_compare(v, kModulus) >= 0) return std::nullopt;
    return from_canonical(v);
  }
  static constexpr MontField from_u64(std::uint64_t v) {
    Limbs l{};
    l[0] = v;
    return from_canonical(l);
  }
  static constexpr MontField from_hex(std::string_view hex) {
    return from_canonical(bigint_from_hex<kLimbs>(hex));
  }

  constexpr Limbs to_canonical() const {
    Limbs one_limb{};
    one_limb[0] = 1;
    Limbs out;
    mont_mul(out, mont, one_limb);
    return out;
  }

  // Big-endian canonical bytes (the Zcash/IETF encoding of Fp); nullopt when >= modulus.
  static std::optional<MontField> from_bytes_be(std::span<const std::uint8_t, kBytes> in) {
    Limbs v{};
    for (std::size_t i = 0; i < kBytes; ++i) {
      const std::size_t byte_from_lsb = kBytes - 1 - i;
      v[byte_from_lsb / 8] |= static_cast<std::uint64_t>(in[i]) << (8 * (byte_from_lsb % 8));
    }
    return from_canonical_checked(v);
  }
  void to_bytes_be(std::span<std::uint8_t, kBytes> out) const {
    const Limbs v = to_canonical();
    for (std::size_t i = 0; i < kBytes; ++i) {
      const std::size_t byte_from_lsb = kBytes - 1 - i;
      out[i] = static_cast<std::uint8_t>(v[byte_from_lsb / 8] >> (8 * (byte_from_lsb % 8)));
    }
  }
  // Little-endian canonical bytes (the bellman/zcash encoding of Fr scalars).
  static std::optional<MontField> from_bytes_le(std::span<const std::uint8_t, kBytes> in) {
    Limbs v{};
    for (std::size_t i = 0; i < kBytes; ++i)
      v[i / 8] |= static_cast<std::uint64_t>(in[i]) << (8 * (i % 8));
    return from_canonical_checked(v);
  }
  void to_bytes_le(std::span<std::uint8_t, kBytes> out) const {
    const Limbs v = to_canonical();
    for (std::size_t i = 0; i < kBytes; ++i)
      out[i] = static_cast<std::uint8_t>(v[i / 8] >> (8 * (i % 8)));
  }

  // Uniform in [0, m): rejection sampling on kBits random bits (accepts with p > 1/2).
  template <class Rng>
  static MontField random(Rng& rng) {
    for (;;) {
      Limbs v;
      for (auto& x : v) x = static_cast<std::uint64_t>(rng());
      if constexpr (kBits % 64 != 0) v[kLimbs - 1] &= (std::uint64_t{1} << (kBits % 64)) - 1;
      if (bigint_compare(v, kModulus) < 0) return from_canonical(v);
    }
  }

  constexpr bool is_zero() const { return bigint_is_zero(mont); }
  constexpr bool is_one() const { return mont == Params::kOne; }
  friend constexpr bool operator==(const MontField& a, const MontField& b) {
    return a.mont == b.mont;
  }

  friend constexpr MontField operator+(MontField a, const MontField& b) { return a += b; }
  friend constexpr MontField operator-(MontField a, const MontField& b) { return a -= b; }
  friend constexpr MontField operator*(MontField a, const MontField& b) { return a *= b; }
  constexpr MontField operator-() const {
    if (is_zero()) return *this;
    MontField r = from_mont(kModulus);
    bigint_sub(r.mont, mont);
    return r;
  }

  PROOFLAB_INLINE constexpr MontField& operator+=(const MontField& b) {
    // 2m < 2^(64 kLimbs), so the sum cannot carry out of the top limb.
    bigint_add(mont, b.mont);
    reduce_once(mont);
    return *this;
  }
  PROOFLAB_INLINE constexpr MontField& operator-=(const MontField& b) {
    // Branch-free: add back m & -borrow (a data-dependent branch mispredicts half the time).
    const std::uint64_t mask = 0 - bigint_sub(mont, b.mont);
    Limbs m = kModulus;
    for (auto& x : m) x &= mask;
    bigint_add(mont, m);
    return *this;
  }
  PROOFLAB_INLINE constexpr MontField& operator*=(const MontField& b) {
    mont_mul(mont, mont, b.mont);
    return *this;
  }
  PROOFLAB_INLINE constexpr MontField dbl() const { return *this + *this; }
  PROOFLAB_INLINE constexpr MontField square() const {
    MontField r;
    mont_mul(r.mont, mont, mont);
    return r;
  }
  // Halving: (a + m)/2 when a is odd.
  constexpr MontField half() const {
    Limbs v = mont;
    std::uint64_t carry = 0;
    if (v[0] & 1) carry = bigint_add(v, kModulus);
    v = bigint_shr(v, 1);
    v[kLimbs - 1] |= carry << 63;
    return from_mont(v);
  }

  // a^e for a canonical exponent given as limbs (any width).
  template <std::size_t M>
  constexpr MontField pow(const BigInt<M>& e) const {
    MontField acc = one();
    for (std::size_t i = bigint_num_bits(e); i-- > 0;) {
      acc = acc.square();
      if (bigint_bit(e, i)) acc *= *this;
    }
    return acc;
  }
  constexpr MontField pow(std::uint64_t e) const { return pow(BigInt<1>{e}); }

  // Multiplicative inverse by Fermat's little theorem; the inverse of 0 is 0 by convention
  // (callers that can see 0 must check; batch inversion skips zeros explicitly).
  constexpr MontField inverse() const { return pow(kModulusMinus2); }

  // Legendre symbol: 1 for a non-zero square, -1 for a non-square, 0 for zero.
  constexpr int legendre() const {
    if (is_zero()) return 0;
    return pow(kHalfOrder).is_one() ? 1 : -1;
  }

  // Whether the canonical value is larger than (m-1)/2 ("lexicographically largest" in the
  // Zcash serialisation, the sign of a y-coordinate).
  constexpr bool is_lexicographically_largest() const {
    return bigint_compare(to_canonical(), kHalfOrder) > 0;
  }

  static constexpr Limbs kModulusMinus2 = bigint_sub_small(kModulus, 2);
  static constexpr Limbs kHalfOrder = bigint_shr(bigint_sub_small(kModulus, 1), 1);

 private:
  // v -= m when v >= m, without a branch.
  PROOFLAB_INLINE static constexpr void reduce_once(Limbs& v) {
    Limbs t = v;
    const std::uint64_t keep_v = 0 - bigint_sub(t, kModulus);
    bigint_select(v, keep_v, v, t);
  }

  // r = a·b·R^-1 mod m (r may alias a or b).
  PROOFLAB_INLINE static constexpr void mont_mul(Limbs& r, const Limbs& a, const Limbs& b) {
    constexpr std::size_t N = kLimbs;
    constexpr Limbs q = kModulus;
    Limbs t{};
#pragma GCC unroll 8
    for (std::size_t i = 0; i < N; ++i) {
      u128 acc = static_cast<u128>(a[0]) * b[i] + t[0];
      std::uint64_t carry_a = static_cast<std::uint64_t>(acc >> 64);
      const std::uint64_t t0 = static_cast<std::uint64_t>(acc);
      const std::uint64_t m = t0 * Params::kInv;
      u128 red = static_cast<u128>(m) * q[0] + t0;
      std::uint64_t carry_m = static_cast<std::uint64_t>(red >> 64);
#pragma GCC unroll 8
      for (std::size_t j = 1; j < N; ++j) {
        acc = static_cast<u128>(a[j]) * b[i] + t[j] + carry_a;
        carry_a = static_cast<std::uint64_t>(acc >> 64);
        red = static_cast<u128>(m) * q[j] + static_cast<std::uint64_t>(acc) + carry_m;
        carry_m = static_cast<std::uint64_t>(red >> 64);
        t[j - 1] = static_cast<std::uint64_t>(red);
      }
      t[N - 1] = carry_a + carry_m;
    }
    reduce_once(t);
    r = t;
  }
};

}  // namespace prooflab::field
