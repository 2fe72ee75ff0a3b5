// The prover's quotient h = (a·b − c)/Z, generic in the field so that the toy-field
// known-answer test (r = 64513, tests/cpp/groth16_toy_kat_test.cpp) runs this very code; the
// Fr instantiation, the one the prover uses, is compiled once, in prover.cpp.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "core/field/bigint.hpp"
#include "core/field/fr.hpp"
#include "core/parallel/thread_pool.hpp"
#include "core/poly/domain.hpp"
#include "core/poly/ntt.hpp"

namespace prooflab::groth16 {

// a, b and c (c may be empty) from the domain to the coset g·H in place: iNTT, then coset NTT.
// Returns the domain; throws, naming `who`, unless each non-empty vector has the domain's size
// (a's, rounded up to a power of two). compute_h and compute_h_on_coset begin with it.
template <class F>
poly::BasicEvaluationDomain<F> to_coset(std::vector<F>& a, std::vector<F>& b, std::vector<F>& c,
                                        parallel::ThreadPool& pool, const char* who) {
  const poly::BasicEvaluationDomain<F> d = poly::BasicEvaluationDomain<F>::at_least(a.size());
  if (a.size() != d.size() || b.size() != d.size() || (!c.empty() && c.size() != d.size()))
    throw std::invalid_argument(std::string(who) + ": a, b (and c, unless empty) must be padded to "
                                "the domain size " + std::to_string(d.size()));
  for (auto* v : {&a, &b, &c}) {
    if (v->empty()) continue;
    poly::intt<F>(*v, d, pool);
    poly::coset_ntt<F>(*v, d, pool);
  }
  return d;
}

// h = (a·b − c)/Z over the coset, as coefficients (m − 1 of them), canonical for the MSM.
// a, b, c hold the QAP rows (constraints, then input rows) zero-padded to the domain size m.
// Consumes a, b, c (they are transformed in place).
template <class F>
std::vector<field::BigInt<F::kLimbs>> compute_h(std::vector<F>& a, std::vector<F>& b,
                                                std::vector<F>& c, parallel::ThreadPool& pool) {
  if (c.empty()) throw std::invalid_argument("compute_h: c is empty (only a coset key folds C in)");
  const poly::BasicEvaluationDomain<F> d = to_coset(a, b, c, pool, "compute_h");
  const F z_inv = d.vanishing_at(poly::BasicEvaluationDomain<F>::coset_shift()).inverse();
  pool.parallel_for(d.size(), 4096, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) a[i] = (a[i] * b[i] - c[i]) * z_inv;
  });
  poly::coset_intt<F>(a, d, pool);
  std::vector<field::BigInt<F::kLimbs>> h(d.size() - 1);
  pool.parallel_for(h.size(), 4096, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) h[i] = a[i].to_canonical();
  });
  return h;
}

// The scalars of the H MSM over a coset H query (h_basis.hpp): (a·b − c) at the m coset points,
// canonical; the key's points carry the 1/Z(g). Six of compute_h's seven transforms. With c
// empty (HBasis::kCosetFoldedC: C's share is in the key) a·b, four transforms. Consumes a, b, c
// as compute_h does.
template <class F>
std::vector<field::BigInt<F::kLimbs>> compute_h_on_coset(std::vector<F>& a, std::vector<F>& b,
                                                         std::vector<F>& c,
                                                         parallel::ThreadPool& pool) {
  const bool with_c = !c.empty();
  const poly::BasicEvaluationDomain<F> d = to_coset(a, b, c, pool, "compute_h_on_coset");
  std::vector<field::BigInt<F::kLimbs>> e(d.size());
  pool.parallel_for(d.size(), 4096, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i)
      e[i] = (with_c ? a[i] * b[i] - c[i] : a[i] * b[i]).to_canonical();
  });
  return e;
}

extern template std::vector<field::BigInt<4>> compute_h<field::Fr>(std::vector<field::Fr>&,
                                                                   std::vector<field::Fr>&,
                                                                   std::vector<field::Fr>&,
                                                                   parallel::ThreadPool&);
extern template std::vector<field::BigInt<4>> compute_h_on_coset<field::Fr>(
    std::vector<field::Fr>&, std::vector<field::Fr>&, std::vector<field::Fr>&,
    parallel::ThreadPool&);

}  // namespace prooflab::groth16
