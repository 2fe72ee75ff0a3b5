// Extended Jacobian "XYZZ" coordinates (x, y) = (X/ZZ, Y/ZZZ) with ZZ^3 = ZZZ^2: cheaper
// mixed additions than Jacobian (8M + 2S, no doubling of intermediate values), the form
// MSM buckets accumulate in. Formulas: EFD "g1p/shortw/xyzz" madd-2008-s, add-2008-s,
// dbl-2008-s-1, mdbl-2008-s-1.
#pragma once

#include "core/curve/jacobian.hpp"

namespace prooflab::curve {

template <class Curve>
struct Xyzz {
  using Field = typename Curve::Field;
  using AffinePoint = Affine<Curve>;
  Field X, Y, ZZ, ZZZ;  // ZZ = 0 is the point at infinity

  static constexpr Xyzz infinity() { return {Field::one(), Field::one(), Field::zero(), Field::zero()}; }
  static constexpr Xyzz from_affine(const AffinePoint& p) {
    if (p.is_infinity()) return infinity();
    return {p.x, p.y, Field::one(), Field::one()};
  }
  constexpr bool is_infinity() const { return ZZ.is_zero(); }

  // With Z = ZZZ (so Z^2 = ZZZ^2 = ZZ^3): X' = x·Z^2 = X·ZZ^2 and Y' = y·Z^3 = Y·ZZZ^2.
  Jacobian<Curve> to_jacobian() const {
    if (is_infinity()) return Jacobian<Curve>::infinity();
    return {X * ZZ.square(), Y * ZZZ.square(), ZZZ};
  }
  AffinePoint to_affine() const {
    if (is_infinity()) return AffinePoint::infinity();
    const Field zzz_inv = ZZZ.inverse();
    const Field zz_inv = (zzz_inv * ZZ).square();  // (ZZ/ZZZ)^2 = ZZ^2/ZZ^3 = 1/ZZ
    return {X * zz_inv, Y * zzz_inv};
  }

  Xyzz dbl() const {
    if (is_infinity()) return *this;
    const Field U = Y.dbl(), V = U.square(), W = U * V, S = X * V;
    const Field x2 = X.square(), M = x2.dbl() + x2;
    const Field X3 = M.square() - S.dbl();
    return {X3, M * (S - X3) - W * Y, V * ZZ, W * ZZZ};
  }

  static Xyzz dbl_affine(const AffinePoint& p) {
    if (p.is_infinity()) return infinity();
    const Field U = p.y.dbl(), V = U.square(), W = U * V, S = p.x * V;
    const Field x2 = p.x.square(), M = x2.dbl() + x2;
    const Field X3 = M.square() - S.dbl();
    return {X3, M * (S - X3) - W * p.y, V, W};
  }

  Xyzz add_mixed(const AffinePoint& q) const {
    if (q.is_infinity()) return *this;
    if (is_infinity()) return from_affine(q);
    const Field U2 = q.x * ZZ, S2 = q.y * ZZZ;
    const Field P = U2 - X, R = S2 - Y;
    if (P.is_zero()) return R.is_zero() ? dbl_affine(q) : infinity();
    const Field PP = P.square(), PPP = P * PP, Q = X * PP;
    const Field X3 = R.square() - PPP - Q.dbl();
    return {X3, R * (Q - X3) - Y * PPP, ZZ * PP, ZZZ * PPP};
  }

  Xyzz add(const Xyzz& q) const {
    if (q.is_infinity()) return *this;
    if (is_infinity()) return q;
    const Field U1 = X * q.ZZ, U2 = q.X * ZZ, S1 = Y * q.ZZZ, S2 = q.Y * ZZZ;
    const Field P = U2 - U1, R = S2 - S1;
    if (P.is_zero()) return R.is_zero() ? dbl() : infinity();
    const Field PP = P.square(), PPP = P * PP, Q = U1 * PP;
    const Field X3 = R.square() - PPP - Q.dbl();
    return {X3, R * (Q - X3) - S1 * PPP, ZZ * q.ZZ * PP, ZZZ * q.ZZZ * PPP};
  }

  constexpr Xyzz operator-() const { return {X, -Y, ZZ, ZZZ}; }
};

}  // namespace prooflab::curve
