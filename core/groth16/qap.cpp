#include "core/groth16/qap.hpp"

namespace prooflab::groth16 {

using field::Fr;

std::size_t qap_rows(const r1cs::R1cs& cs) { return cs.num_constraints + cs.num_inputs; }

unsigned qap_log_domain_size(const r1cs::R1cs& cs) {
  return poly::EvaluationDomain::at_least(qap_rows(cs)).log_size();
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
