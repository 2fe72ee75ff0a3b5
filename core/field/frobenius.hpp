// Frobenius coefficients of the BLS12-381 tower: γ_i = ξ^(i(p-1)/6) for i = 0..5, ξ = u + 1.
// γ_1 is the constant of REFERENCE.md; the others are its powers, computed once.
#pragma once

#include <array>

#include "core/field/fp2.hpp"

namespace prooflab::field {

inline const std::array<Fp2, 6>& frobenius_coefficients() {
  static const std::array<Fp2, 6> table = [] {
    const Fp2 g1{Fp::from_hex("0x1904d3bf02bb0667c231beb4202c0d1f0fd603fd3cbd5f4f7b2443d784bab9c4f"
                              "67ea53d63e7813d8d0775ed92235fb8"),
                 Fp::from_hex("0x00fc3e2b36c4e03288e9e902231f9fb854a14787b6c7b36fec0c8ec971f63c5f2"
                              "82d5ac14d6c7ec22cf78a126ddc4af3")};
    std::array<Fp2, 6> t;
    t[0] = Fp2::one();
    for (int i = 1; i < 6; ++i) t[i] = t[i - 1] * g1;
    return t;
  }();
  return table;
}

}  // namespace prooflab::field
