// The R1CS → QAP reduction shared by setup (evaluations at τ) and the prover (domain size).
#pragma once

#include <vector>

#include "core/field/fr.hpp"
#include "core/parallel/thread_pool.hpp"
#include "core/poly/domain.hpp"
#include "core/r1cs/r1cs.hpp"

namespace prooflab::groth16 {

// Rows of the QAP: the constraints, then one row input_i · 1 = 0 per input.
std::size_t qap_rows(const r1cs::R1cs& cs);
unsigned qap_log_domain_size(const r1cs::R1cs& cs);
std::size_t qap_domain_size(const r1cs::R1cs& cs);

struct QapAtTau {
  std::vector<field::Fr> a, b, c;  // per variable [inputs..., aux...]
  field::Fr z_at_tau;              // Z(τ) = τ^m − 1
};

// a_k(τ) = Σ_rows A[row][k]·L_row(τ), likewise b and c, with the input rows added to A.
// Throws std::invalid_argument when τ lies in the domain (Z(τ) = 0).
QapAtTau evaluate_qap_at(const r1cs::R1cs& cs, const poly::EvaluationDomain& domain,
                         const field::Fr& tau, parallel::ThreadPool& pool);

}  // namespace prooflab::groth16
