#include "core/groth16/qap.hpp"

#include <stdexcept>

namespace prooflab::groth16 {

using field::Fr;

std::size_t qap_rows(const r1cs::R1cs& cs) { return cs.num_constraints + cs.num_inputs; }

unsigned qap_log_domain_size(const r1cs::R1cs& cs) {
  return poly::EvaluationDomain::at_least(qap_rows(cs)).log_size();
}

std::size_t qap_domain_size(const r1cs::R1cs& cs) { return std::size_t{1} << qap_log_domain_size(cs); }

QapAtTau evaluate_qap_at(const r1cs::R1cs& cs, const poly::EvaluationDomain& domain,
                         const Fr& tau, parallel::ThreadPool& pool) {
  const std::size_t m = domain.size(), rows = qap_rows(cs);
  QapAtTau out;
  out.z_at_tau = domain.vanishing_at(tau);
  if (out.z_at_tau.is_zero())
    throw std::invalid_argument("setup: tau lies in the evaluation domain (Z(tau) = 0)");

  // L_j(τ) = Z(τ)/m · ω^j/(τ − ω^j): the denominators batch-inverted with one inversion.
  std::vector<Fr> lagrange(rows);
  {
    std::vector<Fr> denom(rows), prefix(rows);
    Fr w = Fr::one();
    for (std::size_t j = 0; j < rows; ++j) {
      denom[j] = tau - w;
      w *= domain.omega();
    }
    Fr acc = Fr::one();
    for (std::size_t j = 0; j < rows; ++j) {
      prefix[j] = acc;
      acc *= denom[j];
    }
    Fr inv = acc.inverse();
    for (std::size_t j = rows; j-- > 0;) {
      lagrange[j] = inv * prefix[j];
      inv *= denom[j];
    }
    const Fr scale = out.z_at_tau * Fr::from_u64(m).inverse();
    pool.parallel_for(rows, 4096, [&](std::size_t begin, std::size_t end) {
      Fr wj = domain.omega().pow(field::BigInt<1>{begin});
      for (std::size_t j = begin; j < end; ++j) {
        lagrange[j] *= scale * wj;
        wj *= domain.omega();
      }
    });
  }

  const std::size_t vars = cs.num_inputs + cs.num_aux;
  out.a.assign(vars, Fr::zero());
  out.b.assign(vars, Fr::zero());
  out.c.assign(vars, Fr::zero());
  // Column accumulation is a scatter; the three matrices go to three threads.
  auto accumulate = [&](const r1cs::CsrMatrix& mat, std::vector<Fr>& dst) {
    for (std::size_t row = 0; row < cs.num_constraints; ++row)
      for (std::uint64_t k = mat.row_ptr[row]; k < mat.row_ptr[row + 1]; ++k)
        dst[mat.cols[k]] += mat.coeff(k) * lagrange[row];
  };
  auto fa = pool.submit([&] { accumulate(cs.a, out.a); });
  auto fb = pool.submit([&] { accumulate(cs.b, out.b); });
  accumulate(cs.c, out.c);
  fa.get();
  fb.get();
  for (std::size_t i = 0; i < cs.num_inputs; ++i) out.a[i] += lagrange[cs.num_constraints + i];
  return out;
}

}  // namespace prooflab::groth16
