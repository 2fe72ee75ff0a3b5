// Affine points y^2 = x^3 + b, generic over the curve (G1 over Fp, G2 over Fp2).
// The point at infinity is stored as (0, 0), which is never on these curves (b != 0), so an
// affine point is exactly two coordinates: 96 bytes for G1, 192 for G2, the layout of the
// parameter files and of the GPU upload path.
#pragma once

namespace prooflab::curve {

template <class Curve>
struct Affine {
  using Field = typename Curve::Field;
  Field x, y;

  static constexpr Affine infinity() { return {}; }
  constexpr bool is_infinity() const { return x.is_zero() && y.is_zero(); }
  constexpr bool is_on_curve() const {
    return is_infinity() || y.square() == x.square() * x + Curve::b();
  }
  constexpr Affine operator-() const { return is_infinity() ? *this : Affine{x, -y}; }
  friend constexpr bool operator==(const Affine&, const Affine&) = default;
};

}  // namespace prooflab::curve
