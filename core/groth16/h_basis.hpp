// The basis of a proving key's H query (issue 24), apart from the key so that the engine's
// knob h_basis can name it without the curve headers.
#pragma once

#include <cstddef>
#include <cstdint>

namespace prooflab::groth16 {

// kMonomial is the reference's: τ^i·Z(τ)/δ·g1 for i < m − 1, so the prover turns
// (a·b − c)/Z on the coset back into coefficients, its seventh transform. kCosetLagrange holds
// ℓ_j = L_j(τ)·Z(τ)/(δ·Z(g))·g1 for j < m, L_j the Lagrange basis of the coset {g·ω^j} the
// prover evaluates on: the MSM takes the m values of a·b − c there as they are, six transforms
// (snarkjs's zkey does the same over the odd 2m-th roots of unity). Both give the same
// Σ h_i·τ^i·Z(τ)/δ for a satisfied witness (core/groth16/qap.hpp).
//
// kCosetFoldedC is kCosetLagrange with C's share moved into the key: c has degree < m, so
// Σ_j c(x_j)·ℓ_j = c(τ)·Z(τ)/(δ·Z(g)) = Σ_k w_k·c_k(τ)·Z(τ)/(δ·Z(g)). The aux variables' L_k
// carry −c_k(τ)·Z(τ)/(δ·Z(g)), ProvingKey::h_inputs holds the inputs' c_k(τ)·Z(τ)/(δ·Z(g)), and
// the prover computes no C·w at all: a and b's four transforms, the MSM over a·b at the coset
// points, minus Σ_inputs w_k·h_inputs_k. Every point it adds is a combination of the ℓ_j
// (Σ_j c_k(x_j)·ℓ_j), so the key discloses nothing kCosetLagrange's does not.
enum class HBasis : std::uint8_t { kMonomial = 0, kCosetLagrange = 1, kCosetFoldedC = 2 };
// The engine knob's and the parameter cache's names, in enumerator order.
constexpr const char* h_basis_name(HBasis b) {
  return b == HBasis::kCosetFoldedC ? "coset_fold_c" : b == HBasis::kCosetLagrange ? "coset" : "monomial";
}
// The H query is over the coset's points (the MSM takes a·b − c, or a·b, there).
constexpr bool is_coset(HBasis b) { return b != HBasis::kMonomial; }
// C's share is in the key: the prover computes neither C·w nor c's transforms.
constexpr bool folds_c(HBasis b) { return b == HBasis::kCosetFoldedC; }
// The H query's length for a domain of m: m − 1 monomials or m coset points.
constexpr std::size_t h_query_size(HBasis b, std::size_t m) { return is_coset(b) ? m : m - 1; }

}  // namespace prooflab::groth16
