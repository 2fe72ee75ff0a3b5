// Groth16 keys for BLS12-381, laid out like the reference (bellman/bellperson) SRS:
// the verifying key, then the query vectors IC, H, L, A, B_G1, B_G2. A, B_G1 and B_G2 hold
// points only for the variables marked dense (bases at infinity are dropped), so the prover
// walks them alongside the density bitmaps — exactly what prep_msm does in the reference.
#pragma once

#include <vector>

#include "core/curve/g1.hpp"
#include "core/curve/g2.hpp"
#include "core/groth16/h_basis.hpp"

namespace prooflab::groth16 {

using curve::G1Affine;
using curve::G2Affine;

struct VerifyingKey {
  G1Affine alpha_g1, beta_g1, delta_g1;
  G2Affine beta_g2, gamma_g2, delta_g2;
  std::vector<G1Affine> ic;  // one per public input, ONE first
  friend bool operator==(const VerifyingKey&, const VerifyingKey&) = default;
};

struct ProvingKey {
  VerifyingKey vk;
  HBasis h_basis = HBasis::kMonomial;
  std::vector<G1Affine> h;     // kMonomial: τ^i·Z(τ)/δ·g1, i = 0..m-2; the coset bases: m points
  std::vector<G1Affine> l;     // (β·a_k + α·b_k + c_k)/δ·g1 for every aux variable (kCosetFoldedC:
                               // − c_k(τ)·Z(τ)/(δ·Z(g))·g1 more)
  std::vector<G1Affine> h_inputs;  // kCosetFoldedC: c_k(τ)·Z(τ)/(δ·Z(g))·g1 per input; else empty
  std::vector<G1Affine> a;     // a_k(τ)·g1 for inputs, then dense aux variables
  std::vector<G1Affine> b_g1;  // b_k(τ)·g1 for dense inputs, then dense aux variables
  std::vector<G2Affine> b_g2;  // b_k(τ)·g2, same selection as b_g1
  friend bool operator==(const ProvingKey&, const ProvingKey&) = default;
};

}  // namespace prooflab::groth16
