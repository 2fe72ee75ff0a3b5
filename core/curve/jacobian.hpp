// Jacobian coordinates (x, y) = (X/Z^2, Y/Z^3) on y^2 = x^3 + b (a = 0): the general-purpose
// projective form. Formulas from the Explicit-Formulas Database (hyperelliptic.org/EFD,
// "g1p/shortw/jacobian-0"): dbl-2009-l, add-2007-bl, madd-2007-bl.
#pragma once

#include <span>
#include <vector>

#include "core/curve/affine.hpp"

namespace prooflab::curve {

template <class Curve>
struct Jacobian {
  using Field = typename Curve::Field;
  using AffinePoint = Affine<Curve>;
  Field X, Y, Z;  // Z = 0 is the point at infinity

  static constexpr Jacobian infinity() { return {Field::one(), Field::one(), Field::zero()}; }
  static constexpr Jacobian from_affine(const AffinePoint& p) {
    if (p.is_infinity()) return infinity();
    return {p.x, p.y, Field::one()};
  }
  constexpr bool is_infinity() const { return Z.is_zero(); }

  AffinePoint to_affine() const {
    if (is_infinity()) return AffinePoint::infinity();
    const Field zi = Z.inverse(), zi2 = zi.square();
    return {X * zi2, Y * zi2 * zi};
  }

  bool is_on_curve() const {
    if (is_infinity()) return true;
    const Field z2 = Z.square(), z6 = z2.square() * z2;
    return Y.square() == X.square() * X + Curve::b() * z6;
  }

  friend bool operator==(const Jacobian& a, const Jacobian& b) {
    if (a.is_infinity() || b.is_infinity()) return a.is_infinity() && b.is_infinity();
    const Field za2 = a.Z.square(), zb2 = b.Z.square();
    return a.X * zb2 == b.X * za2 && a.Y * zb2 * b.Z == b.Y * za2 * a.Z;
  }

  constexpr Jacobian operator-() const { return {X, -Y, Z}; }

  // dbl-2009-l: 2M + 5S.
  Jacobian dbl() const {
    if (is_infinity()) return *this;
    const Field A = X.square(), B = Y.square(), C = B.square();
    const Field D = ((X + B).square() - A - C).dbl();
    const Field E = A.dbl() + A, F = E.square();
    const Field X3 = F - D.dbl();
    const Field eightC = C.dbl().dbl().dbl();
    return {X3, E * (D - X3) - eightC, (Y * Z).dbl()};
  }

  // add-2007-bl: 11M + 5S; handles doubling and inverses.
  Jacobian add(const Jacobian& q) const {
    if (is_infinity()) return q;
    if (q.is_infinity()) return *this;
    const Field z1z1 = Z.square(), z2z2 = q.Z.square();
    const Field u1 = X * z2z2, u2 = q.X * z1z1;
    const Field s1 = Y * q.Z * z2z2, s2 = q.Y * Z * z1z1;
    const Field h = u2 - u1, r0 = s2 - s1;
    if (h.is_zero()) return r0.is_zero() ? dbl() : infinity();
    const Field i = h.dbl().square(), j = h * i, r = r0.dbl(), v = u1 * i;
    const Field X3 = r.square() - j - v.dbl();
    return {X3, r * (v - X3) - (s1 * j).dbl(), ((Z + q.Z).square() - z1z1 - z2z2) * h};
  }

  // madd-2007-bl: 7M + 4S; the mixed addition of MSM bucket sums and of the Miller loop.
  Jacobian add_mixed(const AffinePoint& q) const {
    if (q.is_infinity()) return *this;
    if (is_infinity()) return from_affine(q);
    const Field z1z1 = Z.square();
    const Field u2 = q.x * z1z1, s2 = q.y * Z * z1z1;
    const Field h = u2 - X, r0 = s2 - Y;
    if (h.is_zero()) return r0.is_zero() ? dbl() : infinity();
    const Field hh = h.square(), i = hh.dbl().dbl(), j = h * i, r = r0.dbl(), v = X * i;
    const Field X3 = r.square() - j - v.dbl();
    return {X3, r * (v - X3) - (Y * j).dbl(), (Z + h).square() - z1z1 - hh};
  }

  Jacobian sub(const Jacobian& q) const { return add(-q); }
};

// Converts many points with one field inversion (Montgomery's trick).
template <class Curve>
void batch_to_affine(std::span<const Jacobian<Curve>> in, std::span<Affine<Curve>> out) {
  using Field = typename Curve::Field;
  std::vector<Field> prefix(in.size());
  Field acc = Field::one();
  for (std::size_t i = 0; i < in.size(); ++i) {
    prefix[i] = acc;
    if (!in[i].is_infinity()) acc *= in[i].Z;
  }
  Field inv = acc.inverse();
  for (std::size_t i = in.size(); i-- > 0;) {
    if (in[i].is_infinity()) {
      out[i] = Affine<Curve>::infinity();
      continue;
    }
    const Field zi = inv * prefix[i];
    inv *= in[i].Z;
    const Field zi2 = zi.square();
    out[i] = {in[i].X * zi2, in[i].Y * zi2 * zi};
  }
}

}  // namespace prooflab::curve
