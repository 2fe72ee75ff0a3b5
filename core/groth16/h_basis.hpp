// The basis of a proving key's H query (issue 24), apart from the key so that the engine's
// knob h_basis can name it without the curve headers.
#pragma once

#include <cstddef>
#include <cstdint>

namespace prooflab::groth16 {

// kMonomial is the reference's: τ^i·Z(τ)/δ·g1 for
// i < m − 1, so the prover turns (a·b − c)/Z on the coset back into coefficients, its seventh
// transform. kCosetLagrange holds L_j(τ)·Z(τ)/(δ·Z(g))·g1 for j < m, L_j the Lagrange basis of
// the coset {g·ω^j} the prover evaluates on: the MSM takes the m values of a·b − c there as
// they are, six transforms (snarkjs's zkey does the same over the odd 2m-th roots of unity).
// Both give the same Σ h_i·τ^i·Z(τ)/δ for a satisfied witness (core/groth16/qap.hpp).
enum class HBasis : std::uint8_t { kMonomial = 0, kCosetLagrange = 1 };
// The engine knob's and the parameter cache's names: "monomial", "coset".
constexpr const char* h_basis_name(HBasis b) { return b == HBasis::kCosetLagrange ? "coset" : "monomial"; }
// The H query's length for a domain of m: m − 1 monomials or m coset points.
constexpr std::size_t h_query_size(HBasis b, std::size_t m) {
  return b == HBasis::kCosetLagrange ? m : m - 1;
}

}  // namespace prooflab::groth16
