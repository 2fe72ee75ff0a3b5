// Groth16 verification: e(A, B) = e(α, β)·e(IC_0 + Σ x_i·IC_i, γ)·e(C, δ), checked as one
// multi-Miller loop over (A, B), (−acc, γ), (−C, δ), (−α, β) and one final exponentiation.
#pragma once

#include <span>
#include <string>

#include "core/field/fr.hpp"
#include "core/groth16/keys.hpp"
#include "core/groth16/proof.hpp"

namespace prooflab::groth16 {

struct VerifyResult {
  bool ok = false;
  std::string reason;  // empty when ok
  explicit operator bool() const { return ok; }
};

// public_inputs excludes the constant ONE (IC_0). A wrong count is reported, not thrown.
VerifyResult verify(const VerifyingKey& vk, const Proof& proof,
                    std::span<const field::Fr> public_inputs);

}  // namespace prooflab::groth16
