// G2: y^2 = x^3 + 4(u + 1) over Fp2 (the M-type sextic twist), r-torsion subgroup.
#pragma once

#include "core/curve/bls12_381.hpp"
#include "core/curve/scalar_mul.hpp"
#include "core/curve/xyzz.hpp"
#include "core/field/fp2.hpp"
#include "core/field/frobenius.hpp"

namespace prooflab::curve {

struct G2Curve {
  using Field = field::Fp2;
  static constexpr Field b() { return {field::Fp::from_u64(4), field::Fp::from_u64(4)}; }
};

using G2Affine = Affine<G2Curve>;
using G2Jacobian = Jacobian<G2Curve>;
using G2Xyzz = Xyzz<G2Curve>;

constexpr G2Affine g2_generator() {
  using field::Fp;
  return {{Fp::from_hex("0x024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0"
                        "326a805bbefd48056c8c121bdb8"),
           Fp::from_hex("0x13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf"
                        "11213945d57e5ac7d055d042b7e")},
          {Fp::from_hex("0x0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac"
                        "9cc3baca289e193548608b82801"),
           Fp::from_hex("0x0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370"
                        "d275cec1da1aaa9075ff05f79be")}};
}

// ψ = untwist ∘ Frobenius ∘ twist: ψ(x, y) = (conj(x)·ξ^-(p-1)/3, conj(y)·ξ^-(p-1)/2).
// In Jacobian coordinates the same coefficients apply to X and Y with Z conjugated.
inline G2Jacobian g2_psi(const G2Jacobian& p) {
  static const field::Fp2 kCx = field::frobenius_coefficients()[2].inverse();
  static const field::Fp2 kCy = field::frobenius_coefficients()[3].inverse();
  return {p.X.conjugate() * kCx, p.Y.conjugate() * kCy, p.Z.conjugate()};
}

// Scott, "A note on group membership tests for G1, G2 and GT on BLS pairing-friendly
// curves" (eprint 2021/1130): a point on the twist lies in G2 iff ψ(P) = [x]P.
inline bool g2_is_in_subgroup(const G2Jacobian& p) {
  G2Jacobian x_p = scalar_mul(p, field::BigInt<1>{kBlsXAbs});
  if (kBlsXIsNegative) x_p = -x_p;
  return g2_psi(p) == x_p;
}

inline bool g2_is_in_subgroup(const G2Affine& p) {
  return g2_is_in_subgroup(G2Jacobian::from_affine(p));
}

}  // namespace prooflab::curve
