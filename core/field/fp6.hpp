// Fp6 = Fp2[v]/(v^3 - ξ), ξ = u + 1.
#pragma once

#include "core/field/fp2.hpp"
#include "core/field/frobenius.hpp"

namespace prooflab::field {

struct Fp6 {
  Fp2 c0, c1, c2;  // c0 + c1·v + c2·v^2

  static constexpr Fp6 zero() { return {}; }
  static constexpr Fp6 one() { return {Fp2::one(), Fp2::zero(), Fp2::zero()}; }
  template <class Rng>
  static Fp6 random(Rng& rng) {
    Fp2 a = Fp2::random(rng), b = Fp2::random(rng);
    return {a, b, Fp2::random(rng)};
  }

  constexpr bool is_zero() const { return c0.is_zero() && c1.is_zero() && c2.is_zero(); }
  friend constexpr bool operator==(const Fp6&, const Fp6&) = default;

  friend constexpr Fp6 operator+(const Fp6& a, const Fp6& b) {
    return {a.c0 + b.c0, a.c1 + b.c1, a.c2 + b.c2};
  }
  friend constexpr Fp6 operator-(const Fp6& a, const Fp6& b) {
    return {a.c0 - b.c0, a.c1 - b.c1, a.c2 - b.c2};
  }
  constexpr Fp6 operator-() const { return {-c0, -c1, -c2}; }
  constexpr Fp6& operator+=(const Fp6& b) { return *this = *this + b; }
  constexpr Fp6& operator-=(const Fp6& b) { return *this = *this - b; }
  constexpr Fp6& operator*=(const Fp6& b) { return *this = *this * b; }

  // Karatsuba over the three coefficients: 6 Fp2 multiplications.
  friend constexpr Fp6 operator*(const Fp6& a, const Fp6& b) {
    const Fp2 t0 = a.c0 * b.c0, t1 = a.c1 * b.c1, t2 = a.c2 * b.c2;
    const Fp2 x = ((a.c1 + a.c2) * (b.c1 + b.c2) - t1 - t2).mul_by_nonresidue() + t0;
    const Fp2 y = (a.c0 + a.c1) * (b.c0 + b.c1) - t0 - t1 + t2.mul_by_nonresidue();
    const Fp2 z = (a.c0 + a.c2) * (b.c0 + b.c2) - t0 - t2 + t1;
    return {x, y, z};
  }
  constexpr Fp6 operator*(const Fp2& s) const { return {c0 * s, c1 * s, c2 * s}; }
  constexpr Fp6 square() const { return *this * *this; }

  // Multiplication by v: (c0, c1, c2) -> (ξ·c2, c0, c1).
  constexpr Fp6 mul_by_v() const { return {c2.mul_by_nonresidue(), c0, c1}; }

  // Multiplication by a sparse b0 + b1·v (5 Fp2 multiplications), used by the Miller loop.
  constexpr Fp6 mul_by_01(const Fp2& b0, const Fp2& b1) const {
    const Fp2 t0 = c0 * b0, t1 = c1 * b1;
    return {(c2 * b1).mul_by_nonresidue() + t0, (c0 + c1) * (b0 + b1) - t0 - t1, c2 * b0 + t1};
  }

  constexpr Fp6 inverse() const {
    const Fp2 t0 = c0.square() - (c1 * c2).mul_by_nonresidue();
    const Fp2 t1 = c2.square().mul_by_nonresidue() - c0 * c1;
    const Fp2 t2 = c1.square() - c0 * c2;
    const Fp2 d = c0 * t0 + (c2 * t1 + c1 * t2).mul_by_nonresidue();
    const Fp2 di = d.inverse();
    return {t0 * di, t1 * di, t2 * di};
  }

  // (c0 + c1 v + c2 v^2)^p = c0^p + c1^p·γ_2 v + c2^p·γ_4 v^2, γ_i = ξ^(i(p-1)/6).
  Fp6 frobenius() const {
    const auto& g = frobenius_coefficients();
    return {c0.frobenius(), c1.frobenius() * g[2], c2.frobenius() * g[4]};
  }
};

}  // namespace prooflab::field
