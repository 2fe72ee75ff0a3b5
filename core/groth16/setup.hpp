// Groth16 SRS generation from toxic waste (α, β, γ, δ, τ) for a compiled R1CS.
//
// The QAP: domain m = next power of two ≥ constraints + inputs, where every input i gets an
// extra row input_i · 1 = 0 (as bellman/bellperson do, so the input columns of A are
// linearly independent). a_k(τ), b_k(τ), c_k(τ) come from the Lagrange basis at τ:
// L_j(τ) = Z(τ)·ω^j / (m·(τ − ω^j)). The group elements are computed with fixed-base
// window tables on every thread of the pool.
#pragma once

#include <cstdint>
#include <optional>

#include "core/field/fr.hpp"
#include "core/groth16/keys.hpp"
#include "core/groth16/param_file.hpp"
#include "core/parallel/thread_pool.hpp"
#include "core/r1cs/r1cs.hpp"

namespace prooflab::groth16 {

struct ToxicWaste {
  field::Fr alpha, beta, gamma, delta, tau;
  // From a seed (tests, reproducible benchmarks) or, without one, from the OS RNG.
  static ToxicWaste generate(std::optional<std::uint64_t> seed);
};

struct SetupStats {
  std::uint64_t g1_points = 0, g2_points = 0;
  double qap_seconds = 0, g1_seconds = 0, g2_seconds = 0;
  double points_per_second() const {
    const double s = g1_seconds + g2_seconds;
    return s > 0 ? static_cast<double>(g1_points + g2_points) / s : 0;
  }
};

// A hash of the matrices and densities (what a parameter file must have been made for).
std::uint64_t shape_hash(const r1cs::R1cs& cs);

// The shape a parameter file must match for this R1CS (domain size and a hash of the
// matrices and densities).
CircuitShape circuit_shape(const r1cs::R1cs& cs);

// A key read from a file matches the circuit's shape hash, but only the circuit says how
// many variables are dense: throws std::invalid_argument naming the section (A, B_G1, B_G2)
// when the key's queries are not exactly the ones generate_parameters makes for cs, so the
// prover never indexes past the end of one.
void check_key_fits(const ProvingKey& pk, const r1cs::R1cs& cs);

// h_basis: the H query's basis (keys.hpp); the other queries do not depend on it.
ProvingKey generate_parameters(const r1cs::R1cs& cs, const ToxicWaste& tw,
                               parallel::ThreadPool& pool, SetupStats* stats = nullptr,
                               HBasis h_basis = HBasis::kMonomial);

}  // namespace prooflab::groth16
