// Fp12 = Fp6[w]/(w^2 - v), the target field of the pairing. Written as a sum over the
// basis w^0..w^5: c0 = (a0, a2, a4), c1 = (a1, a3, a5).
#pragma once

#include "core/field/fp6.hpp"

namespace prooflab::field {

struct Fp12 {
  Fp6 c0, c1;  // c0 + c1·w

  static constexpr Fp12 zero() { return {}; }
  static constexpr Fp12 one() { return {Fp6::one(), Fp6::zero()}; }
  template <class Rng>
  static Fp12 random(Rng& rng) {
    Fp6 a = Fp6::random(rng);
    return {a, Fp6::random(rng)};
  }

  constexpr bool is_one() const { return *this == one(); }
  friend constexpr bool operator==(const Fp12&, const Fp12&) = default;

  friend constexpr Fp12 operator+(const Fp12& a, const Fp12& b) { return {a.c0 + b.c0, a.c1 + b.c1}; }
  friend constexpr Fp12 operator-(const Fp12& a, const Fp12& b) { return {a.c0 - b.c0, a.c1 - b.c1}; }
  constexpr Fp12& operator*=(const Fp12& b) { return *this = *this * b; }

  friend constexpr Fp12 operator*(const Fp12& a, const Fp12& b) {
    const Fp6 t0 = a.c0 * b.c0, t1 = a.c1 * b.c1;
    return {t0 + t1.mul_by_v(), (a.c0 + a.c1) * (b.c0 + b.c1) - t0 - t1};
  }
  // (c0 + c1 w)^2 = c0^2 + c1^2 v + 2 c0 c1 w, with 2 Fp6 multiplications.
  constexpr Fp12 square() const {
    const Fp6 t = c0 * c1;
    const Fp6 s = (c0 + c1) * (c0 + c1.mul_by_v()) - t - t.mul_by_v();
    return {s, t + t};
  }

  // Multiplication by a Miller-loop line l = a0 + a2·w^2 + a3·w^3, i.e. c0 = (a0, a2, 0),
  // c1 = (0, a3, 0): 13 Fp2 multiplications instead of 18.
  constexpr Fp12 mul_by_line(const Fp2& a0, const Fp2& a2, const Fp2& a3) const {
    const Fp6 t0 = c0.mul_by_01(a0, a2);
    const Fp6 t1 = (c1 * a3).mul_by_v();
    const Fp6 s = (c0 + c1).mul_by_01(a0, a2 + a3);
    return {t0 + t1.mul_by_v(), s - t0 - t1};
  }

  // The p^6-power Frobenius: w -> -w.
  constexpr Fp12 conjugate() const { return {c0, -c1}; }

  constexpr Fp12 inverse() const {
    const Fp6 t = (c0.square() - c1.square().mul_by_v()).inverse();
    return {c0 * t, -(c1 * t)};
  }

  // The p-power Frobenius: the coefficient of w^i goes to conj(a_i)·γ_i, so
  // c1 = (a1, a3, a5) maps to γ_1·(Fp6 Frobenius of c1).
  Fp12 frobenius() const {
    const auto& g = frobenius_coefficients();
    return {c0.frobenius(), c1.frobenius() * g[1]};
  }
  Fp12 frobenius(unsigned k) const {
    Fp12 r = *this;
    for (unsigned i = 0; i < k; ++i) r = r.frobenius();
    return r;
  }

  // Squaring in the cyclotomic subgroup (elements with f^(p^6+1) = 1, i.e. after the easy
  // part of the final exponentiation): Granger and Scott, "Faster squaring in the cyclotomic
  // subgroup of sixth degree extensions" (PKC 2010), as three Fp4 squarings.
  Fp12 cyclotomic_square() const;

  template <std::size_t M>
  Fp12 pow(const BigInt<M>& e) const {
    Fp12 acc = one();
    for (std::size_t i = bigint_num_bits(e); i-- > 0;) {
      acc = acc.square();
      if (bigint_bit(e, i)) acc *= *this;
    }
    return acc;
  }
};

namespace detail {
// (a + b·y)^2 in Fp4 = Fp2[y]/(y^2 - ξ), returned as (a^2 + ξ b^2, 2ab).
constexpr void fp4_square(Fp2& out0, Fp2& out1, const Fp2& a, const Fp2& b) {
  const Fp2 a2 = a.square(), b2 = b.square();
  out0 = b2.mul_by_nonresidue() + a2;
  out1 = (a + b).square() - a2 - b2;
}
}  // namespace detail

inline Fp12 Fp12::cyclotomic_square() const {
  // Fp12 as Fp4^3 with the pairs (a0, a3), (a4, a1), (a2, a5) over y = w^3.
  Fp2 z0 = c0.c0, z4 = c0.c1, z3 = c0.c2, z2 = c1.c0, z1 = c1.c1, z5 = c1.c2;
  Fp2 t0, t1, t2, t3;
  detail::fp4_square(t0, t1, z0, z1);
  z0 = (t0 - z0).dbl() + t0;
  z1 = (t1 + z1).dbl() + t1;
  detail::fp4_square(t0, t1, z2, z3);
  detail::fp4_square(t2, t3, z4, z5);
  z4 = (t0 - z4).dbl() + t0;
  z5 = (t1 + z5).dbl() + t1;
  const Fp2 t3x = t3.mul_by_nonresidue();
  z2 = (t3x + z2).dbl() + t3x;
  z3 = (t2 - z3).dbl() + t2;
  return {{z0, z4, z3}, {z2, z1, z5}};
}

}  // namespace prooflab::field
