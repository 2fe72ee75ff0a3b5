#include "core/groth16/qap.hpp"

namespace prooflab::groth16 {

using field::Fr;

std::size_t qap_rows(const r1cs::R1cs& cs) { return cs.num_constraints + cs.num_inputs; }

// The size only: building the domain (its twiddles) cost every partition's synthesis and,
// with sparse_products = gpu, every GPU phase 150-280 ms at 2^22 on the H200 host
// (results/2026-12-03-sparse-products-h200).
unsigned qap_log_domain_size(const r1cs::R1cs& cs) {
  return poly::EvaluationDomain::log_size_at_least(qap_rows(cs));
}

std::size_t qap_domain_size(const r1cs::R1cs& cs) {
  return std::size_t{1} << qap_log_domain_size(cs);
}

QapAtTau evaluate_qap_at(const r1cs::R1cs& cs, const poly::EvaluationDomain& domain, const Fr& tau,
                         parallel::ThreadPool& pool) {
  return evaluate_qap_at<Fr>(cs, domain, tau, pool, {cs.a.coeffs, cs.b.coeffs, cs.c.coeffs});
}

template QapAtTau evaluate_qap_at<Fr>(const r1cs::R1cs&, const poly::EvaluationDomain&, const Fr&,
                                      parallel::ThreadPool&, const CoefficientTables<Fr>&);
template QueryScalars<Fr> query_scalars<Fr>(const r1cs::R1cs&, const QapAtTau&, std::size_t,
                                            const Fr&, const Fr&, const Fr&, const Fr&, const Fr&);

}  // namespace prooflab::groth16
