#include "core/groth16/verifier.hpp"

#include <array>

#include "core/pairing/pairing.hpp"

namespace prooflab::groth16 {

VerifyResult verify(const VerifyingKey& vk, const Proof& proof,
                    std::span<const field::Fr> public_inputs) {
  if (public_inputs.size() + 1 != vk.ic.size())
    return {false, "expected " + std::to_string(vk.ic.size() - 1) + " public inputs, got " +
                       std::to_string(public_inputs.size())};
  curve::G1Jacobian acc = curve::G1Jacobian::from_affine(vk.ic[0]);
  for (std::size_t i = 0; i < public_inputs.size(); ++i)
    acc = acc.add(curve::scalar_mul(curve::G1Jacobian::from_affine(vk.ic[i + 1]), public_inputs[i]));
  const std::array<std::pair<curve::G1Affine, curve::G2Affine>, 4> pairs{{
      {proof.a, proof.b},
      {-acc.to_affine(), vk.gamma_g2},
      {-proof.c, vk.delta_g2},
      {-vk.alpha_g1, vk.beta_g2},
  }};
  if (!pairing::pairing_product_is_one(pairs))
    return {false, "pairing check failed: e(A,B) != e(alpha,beta)·e(IC(x),gamma)·e(C,delta)"};
  return {true, {}};
}

}  // namespace prooflab::groth16
