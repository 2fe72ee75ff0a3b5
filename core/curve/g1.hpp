// G1: y^2 = x^3 + 4 over Fp, the r-torsion subgroup of cofactor h1 (REFERENCE.md).
#pragma once

#include "core/curve/bls12_381.hpp"
#include "core/curve/scalar_mul.hpp"
#include "core/curve/xyzz.hpp"
#include "core/field/fp.hpp"

namespace prooflab::curve {

struct G1Curve {
  using Field = field::Fp;
  static constexpr Field b() { return Field::from_u64(4); }
};

using G1Affine = Affine<G1Curve>;
using G1Jacobian = Jacobian<G1Curve>;
using G1Xyzz = Xyzz<G1Curve>;

constexpr G1Affine g1_generator() {
  return {field::Fp::from_hex("0x17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586"
                              "c55e83ff97a1aeffb3af00adb22c6bb"),
          field::Fp::from_hex("0x08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd"
                              "03cc744a2888ae40caa232946c5e7e1")};
}

// φ(x, y) = (β·x, y), β a primitive cube root of unity in Fp. With this β, φ acts on G1 as
// multiplication by -x^2 (the other cube root gives x^2 - 1).
inline G1Jacobian g1_endomorphism(const G1Jacobian& p) {
  static constexpr field::Fp kBeta = field::Fp::from_hex(
      "0x5f19672fdf76ce51ba69c6076a0f77eaddb3a93be6f89688de17d813620a00022e01fffffffefffe");
  return {p.X * kBeta, p.Y, p.Z};
}

// Subgroup check of Bowe, "Faster subgroup checks for BLS12-381" (eprint 2019/814):
// a point on the curve lies in G1 iff φ(P) = -x^2·P. About half the cost of r·P.
inline bool g1_is_in_subgroup(const G1Jacobian& p) {
  const G1Jacobian x_p = scalar_mul(p, field::BigInt<1>{kBlsXAbs});
  const G1Jacobian x2_p = scalar_mul(x_p, field::BigInt<1>{kBlsXAbs});  // (-x)^2 = x^2
  return g1_endomorphism(p) == -x2_p;
}

inline bool g1_is_in_subgroup(const G1Affine& p) {
  return g1_is_in_subgroup(G1Jacobian::from_affine(p));
}

}  // namespace prooflab::curve
