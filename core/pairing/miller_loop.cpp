// Miller loop with the G2 accumulator T in Jacobian coordinates on the twist and lines
// evaluated at P directly in sparse form.
//
// With the M-type untwist (x, y) -> (x/w^2, y/w^3), the tangent (or chord) line through T
// with twist slope λ', evaluated at P and multiplied by w^3 (an element of the subfield
// Fp4, which the final exponentiation kills), is
//     l = (λ'·x_T - y_T) + (-λ'·x_P)·w^2 + y_P·w^3,
// i.e. Fp12::mul_by_line(a0, a2, a3). Denominators of λ' are cleared by multiplying the
// whole line by an Fp2 factor, which the final exponentiation also kills.
#include <vector>

#include "core/pairing/pairing.hpp"

namespace prooflab::pairing {
namespace {

using field::Fp;
using field::Fp2;

struct Line {
  Fp2 a0, a2, a3;
};

// Tangent at T = (X, Y, Z): λ' = 3X^2/(2YZ); the line times 2YZ^3 is
// a0 = 3X^3 - 2Y^2, a2 = -3X^2 Z^2 x_P, a3 = 2YZ^3 y_P. Then T <- 2T (dbl-2009-l).
Line doubling_step(curve::G2Jacobian& t, const Fp& xp, const Fp& yp) {
  const Fp2 A = t.X.square(), B = t.Y.square(), C = B.square(), zz = t.Z.square();
  const Fp2 E = A.dbl() + A;
  const Fp2 z3 = (t.Y * t.Z).dbl();
  Line l{E * t.X - B.dbl(), -(E * zz) * xp, (z3 * zz) * yp};
  const Fp2 D = ((t.X + B).square() - A - C).dbl();
  const Fp2 X3 = E.square() - D.dbl();
  t.Y = E * (D - X3) - C.dbl().dbl().dbl();
  t.X = X3;
  t.Z = z3;
  return l;
}

// Chord through T and affine Q: with H = x_Q Z^2 - X and R = y_Q Z^3 - Y, λ' = R/(Z H);
// the line times Z·H is a0 = R x_Q - y_Q Z H, a2 = -R x_P, a3 = Z H y_P. Then T <- T + Q.
Line addition_step(curve::G2Jacobian& t, const G2Affine& q, const Fp& xp, const Fp& yp) {
  const Fp2 zz = t.Z.square();
  const Fp2 H = q.x * zz - t.X, R = q.y * t.Z * zz - t.Y;
  const Fp2 z3 = t.Z * H;
  Line l{R * q.x - q.y * z3, -(R * xp), z3 * yp};
  const Fp2 HH = H.square(), HHH = H * HH, V = t.X * HH;
  const Fp2 X3 = R.square() - HHH - V.dbl();
  t.Y = R * (V - X3) - t.Y * HHH;
  t.X = X3;
  t.Z = z3;
  return l;
}

}  // namespace

Fp12 multi_miller_loop(std::span<const std::pair<G1Affine, G2Affine>> pairs) {
  std::vector<std::pair<G1Affine, G2Affine>> live;
  live.reserve(pairs.size());
  for (const auto& pq : pairs)
    if (!pq.first.is_infinity() && !pq.second.is_infinity()) live.push_back(pq);

  std::vector<curve::G2Jacobian> acc;
  acc.reserve(live.size());
  for (const auto& pq : live) acc.push_back(curve::G2Jacobian::from_affine(pq.second));

  Fp12 f = Fp12::one();
  const int top = 63 - __builtin_clzll(curve::kBlsXAbs);
  for (int bit = top - 1; bit >= 0; --bit) {
    if (bit != top - 1) f = f.square();
    for (std::size_t i = 0; i < live.size(); ++i) {
      const Line l = doubling_step(acc[i], live[i].first.x, live[i].first.y);
      f = f.mul_by_line(l.a0, l.a2, l.a3);
    }
    if ((curve::kBlsXAbs >> bit) & 1) {
      for (std::size_t i = 0; i < live.size(); ++i) {
        const Line l = addition_step(acc[i], live[i].second, live[i].first.x, live[i].first.y);
        f = f.mul_by_line(l.a0, l.a2, l.a3);
      }
    }
  }
  // f_{x,Q} for negative x is the conjugate (the inverse, up to a factor killed by FE).
  return curve::kBlsXIsNegative ? f.conjugate() : f;
}

}  // namespace prooflab::pairing
