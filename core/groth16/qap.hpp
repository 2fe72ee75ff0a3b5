// The R1CS → QAP reduction shared by setup (evaluations at τ) and the prover (domain size),
// and the scalars of the SRS queries that setup multiplies the generators by.
//
// Generic in the field F of the domain and τ so that the toy-field known-answer test
// (r = 64513, tests/cpp/groth16_toy_kat_test.cpp) runs this very code. The R1cs keeps its
// coefficients in Fr; for another field the caller supplies the images of the three
// coefficient tables (CsrMatrix::coeffs, indexed by coeff_ids). The Fr instantiation is
// compiled once, in qap.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
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

template <class F>
struct BasicQapAtTau {
  std::vector<F> a, b, c;  // per variable [inputs..., aux...]
  F z_at_tau;              // Z(τ) = τ^m − 1
};
using QapAtTau = BasicQapAtTau<field::Fr>;

// The coefficient tables of A, B and C mapped into F (for Fr: the matrices' own tables).
template <class F>
struct CoefficientTables {
  std::span<const F> a, b, c;
};

// a_k(τ) = Σ_rows A[row][k]·L_row(τ), likewise b and c, with the input rows added to A.
// Throws std::invalid_argument when τ lies in the domain (Z(τ) = 0).
template <class F>
BasicQapAtTau<F> evaluate_qap_at(const r1cs::R1cs& cs, const poly::BasicEvaluationDomain<F>& domain,
                                 const F& tau, parallel::ThreadPool& pool,
                                 const CoefficientTables<F>& coeffs);
// Fr, with the R1cs's own coefficients.
QapAtTau evaluate_qap_at(const r1cs::R1cs& cs, const poly::EvaluationDomain& domain,
                         const field::Fr& tau, parallel::ThreadPool& pool);

// The discrete logarithms of the SRS queries (REFERENCE.md, Groth16 setup), in the layout of
// ProvingKey: IC_k = (β·a_k + α·b_k + c_k)/γ for the inputs, L_k = (…)/δ for the aux
// variables, H_i = τ^i·Z(τ)/δ for i < m − 1, A = a_k for the inputs and the A-dense aux
// variables, B = b_k for the B-dense variables (B1 and B2 share it).
template <class F>
struct QueryScalars {
  std::vector<F> ic, l, h, a, b;
};

template <class F>
QueryScalars<F> query_scalars(const r1cs::R1cs& cs, const BasicQapAtTau<F>& qap,
                              std::size_t domain_size, const F& alpha, const F& beta,
                              const F& gamma, const F& delta, const F& tau);

template <class F>
BasicQapAtTau<F> evaluate_qap_at(const r1cs::R1cs& cs, const poly::BasicEvaluationDomain<F>& domain,
                                 const F& tau, parallel::ThreadPool& pool,
                                 const CoefficientTables<F>& coeffs) {
  const std::size_t m = domain.size(), rows = qap_rows(cs);
  if (rows > m)
    throw std::invalid_argument("evaluate_qap_at: " + std::to_string(rows) +
                                " QAP rows do not fit a domain of " + std::to_string(m));
  BasicQapAtTau<F> out;
  out.z_at_tau = domain.vanishing_at(tau);
  if (out.z_at_tau.is_zero())
    throw std::invalid_argument("setup: tau lies in the evaluation domain (Z(tau) = 0)");

  // L_j(τ) = Z(τ)/m · ω^j/(τ − ω^j): the denominators batch-inverted with one inversion.
  std::vector<F> lagrange(rows);
  {
    std::vector<F> denom(rows), prefix(rows);
    F w = F::one();
    for (std::size_t j = 0; j < rows; ++j) {
      denom[j] = tau - w;
      w *= domain.omega();
    }
    F acc = F::one();
    for (std::size_t j = 0; j < rows; ++j) {
      prefix[j] = acc;
      acc *= denom[j];
    }
    F inv = acc.inverse();
    for (std::size_t j = rows; j-- > 0;) {
      lagrange[j] = inv * prefix[j];
      inv *= denom[j];
    }
    const F scale = out.z_at_tau * F::from_u64(m).inverse();
    pool.parallel_for(rows, 4096, [&](std::size_t begin, std::size_t end) {
      F wj = domain.omega().pow(field::BigInt<1>{begin});
      for (std::size_t j = begin; j < end; ++j) {
        lagrange[j] *= scale * wj;
        wj *= domain.omega();
      }
    });
  }

  const std::size_t vars = cs.num_inputs + cs.num_aux;
  out.a.assign(vars, F::zero());
  out.b.assign(vars, F::zero());
  out.c.assign(vars, F::zero());
  // Column accumulation is a scatter; the three matrices go to three threads.
  auto accumulate = [&](const r1cs::CsrMatrix& mat, std::span<const F> table, std::vector<F>& dst) {
    if (table.size() != mat.coeffs.size())
      throw std::invalid_argument("evaluate_qap_at: a coefficient table of " +
                                  std::to_string(table.size()) + " entries for a matrix with " +
                                  std::to_string(mat.coeffs.size()));
    for (std::size_t row = 0; row < cs.num_constraints; ++row)
      for (std::uint64_t k = mat.row_ptr[row]; k < mat.row_ptr[row + 1]; ++k)
        dst[mat.cols[k]] += table[mat.coeff_ids[k]] * lagrange[row];
  };
  auto fa = pool.submit([&] { accumulate(cs.a, coeffs.a, out.a); });
  auto fb = pool.submit([&] { accumulate(cs.b, coeffs.b, out.b); });
  accumulate(cs.c, coeffs.c, out.c);
  fa.get();
  fb.get();
  for (std::size_t i = 0; i < cs.num_inputs; ++i) out.a[i] += lagrange[cs.num_constraints + i];
  return out;
}

template <class F>
QueryScalars<F> query_scalars(const r1cs::R1cs& cs, const BasicQapAtTau<F>& qap,
                              std::size_t domain_size, const F& alpha, const F& beta,
                              const F& gamma, const F& delta, const F& tau) {
  const F gamma_inv = gamma.inverse(), delta_inv = delta.inverse();
  const std::size_t ni = cs.num_inputs, na = cs.num_aux;
  QueryScalars<F> q;
  q.ic.resize(ni);
  q.l.resize(na);
  q.h.resize(domain_size - 1);
  for (std::size_t k = 0; k < ni + na; ++k) {
    const F v = beta * qap.a[k] + alpha * qap.b[k] + qap.c[k];
    if (k < ni)
      q.ic[k] = v * gamma_inv;
    else
      q.l[k - ni] = v * delta_inv;
  }
  F t = qap.z_at_tau * delta_inv;  // τ^i·Z(τ)/δ
  for (auto& x : q.h) {
    x = t;
    t *= tau;
  }
  for (std::size_t k = 0; k < ni + na; ++k) {
    if (k < ni || cs.a_aux_density.test(k - ni)) q.a.push_back(qap.a[k]);
    const bool b_dense = k < ni ? cs.b_input_density.test(k) : cs.b_aux_density.test(k - ni);
    if (b_dense) q.b.push_back(qap.b[k]);
  }
  return q;
}

// The H query in the coset's Lagrange basis (keys.hpp, HBasis::kCosetLagrange): for the
// coset points x_j = g·ω^j (g = coset_shift, j < m), ℓ_j = L_j(τ)·Z(τ)/(δ·Z(g)) with
// L_j(τ) = x_j·(τ^m − g^m)/(m·g^m·(τ − x_j)), Z(g) = g^m − 1 (Z is constant on the coset).
// Then Σ_j e_j·ℓ_j = h(τ)·Z(τ)/δ for e_j = (a·b − c)(x_j), h's m values there being e_j/Z(g).
// Throws std::invalid_argument when τ lies on the coset.
template <class F>
std::vector<F> coset_lagrange_h_scalars(const poly::BasicEvaluationDomain<F>& domain, const F& tau,
                                        const F& delta, parallel::ThreadPool& pool) {
  const std::size_t m = domain.size();
  const F g = poly::BasicEvaluationDomain<F>::coset_shift();
  const F g_m = g.pow(field::BigInt<1>{m});
  const F tau_m_minus_g_m = tau.pow(field::BigInt<1>{m}) - g_m;
  if (tau_m_minus_g_m.is_zero())
    throw std::invalid_argument("setup: tau lies on the coset g*H (tau^m = g^m)");
  // x_j and the denominators τ − x_j, batch-inverted with one inversion per chunk.
  std::vector<F> out(m);
  const F scale = tau_m_minus_g_m * domain.vanishing_at(tau) *
                  (F::from_u64(m) * g_m * domain.vanishing_at(g) * delta).inverse();
  pool.parallel_for(m, 4096, [&](std::size_t begin, std::size_t end) {
    std::vector<F> x(end - begin), prefix(end - begin);
    F xj = g * domain.omega().pow(field::BigInt<1>{begin}), acc = F::one();
    for (std::size_t j = begin; j < end; ++j) {
      x[j - begin] = xj;
      prefix[j - begin] = acc;
      acc *= tau - xj;
      xj *= domain.omega();
    }
    F inv = acc.inverse();
    for (std::size_t j = end; j-- > begin;) {
      out[j] = scale * x[j - begin] * inv * prefix[j - begin];
      inv *= tau - x[j - begin];
    }
  });
  return out;
}

// HBasis::kCosetFoldedC (h_basis.hpp): C's share of the coset H moved into the key. With
// zf = Z(τ)/(δ·Z(g)), each aux variable's L scalar loses c_k(τ)·zf; returns the inputs'
// c_k(τ)·zf (ProvingKey::h_inputs), which the prover subtracts weighted by the inputs' values.
template <class F>
std::vector<F> fold_c_into_l(const BasicQapAtTau<F>& qap, std::size_t num_inputs,
                             const poly::BasicEvaluationDomain<F>& domain, const F& delta,
                             std::vector<F>& l) {
  if (qap.c.size() != num_inputs + l.size())
    throw std::invalid_argument("fold_c_into_l: " + std::to_string(qap.c.size()) + " variables for " +
                                std::to_string(num_inputs) + " inputs and " + std::to_string(l.size()) +
                                " aux");
  const F zf = qap.z_at_tau * (delta * domain.vanishing_at(poly::BasicEvaluationDomain<F>::coset_shift())).inverse();
  for (std::size_t k = 0; k < l.size(); ++k) l[k] -= qap.c[num_inputs + k] * zf;
  std::vector<F> inputs(num_inputs);
  for (std::size_t k = 0; k < num_inputs; ++k) inputs[k] = qap.c[k] * zf;
  return inputs;
}

extern template QapAtTau evaluate_qap_at<field::Fr>(const r1cs::R1cs&,
                                                    const poly::EvaluationDomain&, const field::Fr&,
                                                    parallel::ThreadPool&,
                                                    const CoefficientTables<field::Fr>&);
extern template QueryScalars<field::Fr> query_scalars<field::Fr>(const r1cs::R1cs&, const QapAtTau&,
                                                                 std::size_t, const field::Fr&,
                                                                 const field::Fr&, const field::Fr&,
                                                                 const field::Fr&,
                                                                 const field::Fr&);

}  // namespace prooflab::groth16
