// Fp2 = Fp[u]/(u^2 + 1), the field of G2 coordinates.
#pragma once

#include <optional>

#include "core/field/fp.hpp"

namespace prooflab::field {

struct Fp2 {
  Fp c0, c1;  // c0 + c1·u

  static constexpr Fp2 zero() { return {}; }
  static constexpr Fp2 one() { return {Fp::one(), Fp::zero()}; }
  template <class Rng>
  static Fp2 random(Rng& rng) {
    Fp a = Fp::random(rng);
    return {a, Fp::random(rng)};
  }

  constexpr bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  friend constexpr bool operator==(const Fp2&, const Fp2&) = default;

  friend constexpr Fp2 operator+(const Fp2& a, const Fp2& b) { return {a.c0 + b.c0, a.c1 + b.c1}; }
  friend constexpr Fp2 operator-(const Fp2& a, const Fp2& b) { return {a.c0 - b.c0, a.c1 - b.c1}; }
  constexpr Fp2 operator-() const { return {-c0, -c1}; }
  constexpr Fp2& operator+=(const Fp2& b) { return *this = *this + b; }
  constexpr Fp2& operator-=(const Fp2& b) { return *this = *this - b; }
  constexpr Fp2& operator*=(const Fp2& b) { return *this = *this * b; }

  // Karatsuba: 3 Fp multiplications.
  friend constexpr Fp2 operator*(const Fp2& a, const Fp2& b) {
    const Fp t0 = a.c0 * b.c0;
    const Fp t1 = a.c1 * b.c1;
    return {t0 - t1, (a.c0 + a.c1) * (b.c0 + b.c1) - t0 - t1};
  }
  constexpr Fp2 operator*(const Fp& s) const { return {c0 * s, c1 * s}; }
  // Complex squaring: (c0 + c1)(c0 - c1) + 2·c0·c1·u, 2 Fp multiplications.
  constexpr Fp2 square() const {
    const Fp t = c0 * c1;
    return {(c0 + c1) * (c0 - c1), t + t};
  }
  constexpr Fp2 dbl() const { return {c0.dbl(), c1.dbl()}; }
  constexpr Fp2 conjugate() const { return {c0, -c1}; }
  // The p-power Frobenius on Fp2 is conjugation.
  constexpr Fp2 frobenius() const { return conjugate(); }
  // Multiplication by the non-residue ξ = u + 1 that defines Fp6.
  constexpr Fp2 mul_by_nonresidue() const { return {c0 - c1, c0 + c1}; }
  constexpr Fp norm() const { return c0.square() + c1.square(); }
  constexpr Fp2 inverse() const {
    const Fp n = norm().inverse();
    return {c0 * n, -(c1 * n)};
  }
  template <std::size_t M>
  constexpr Fp2 pow(const BigInt<M>& e) const {
    Fp2 acc = one();
    for (std::size_t i = bigint_num_bits(e); i-- > 0;) {
      acc = acc.square();
      if (bigint_bit(e, i)) acc *= *this;
    }
    return acc;
  }

  // The Zcash "sign" of an Fp2 y-coordinate: compare c1 first, c0 when c1 is zero.
  constexpr bool is_lexicographically_largest() const {
    if (!c1.is_zero()) return c1.is_lexicographically_largest();
    return c0.is_lexicographically_largest();
  }
};

// Square root in Fp2 for p ≡ 3 (mod 4): Algorithm 9 of Adj and Rodríguez-Henríquez,
// "Square root computation over even extension fields" (eprint 2012/685).
inline std::optional<Fp2> sqrt(const Fp2& a) {
  if (a.is_zero()) return Fp2::zero();
  static constexpr auto kPMinus3Over4 = bigint_shr(bigint_sub_small(FpParams::kModulus, 3), 2);
  static constexpr auto kPMinus1Over2 = bigint_shr(bigint_sub_small(FpParams::kModulus, 1), 1);
  const Fp2 a1 = a.pow(kPMinus3Over4);
  const Fp2 alpha = a1.square() * a;
  const Fp2 x0 = a1 * a;
  Fp2 x;
  if (alpha == -Fp2::one()) {
    x = {-x0.c1, x0.c0};  // u·x0
  } else {
    x = (alpha + Fp2::one()).pow(kPMinus1Over2) * x0;
  }
  if (x.square() == a) return x;
  return std::nullopt;
}

}  // namespace prooflab::field
