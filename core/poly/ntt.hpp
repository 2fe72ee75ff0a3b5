// Number-theoretic transforms over Fr on an EvaluationDomain, multi-threaded over a pool.
// All transforms take and return natural order (the bit-reversal is folded in).
#pragma once

#include <span>

#include "core/parallel/thread_pool.hpp"
#include "core/poly/domain.hpp"

namespace prooflab::poly {

// Coefficients -> evaluations at ω^0..ω^(n-1). a.size() must equal the domain size.
void ntt(std::span<Fr> a, const EvaluationDomain& d, parallel::ThreadPool& pool);
// Evaluations -> coefficients (includes the 1/n scaling).
void intt(std::span<Fr> a, const EvaluationDomain& d, parallel::ThreadPool& pool);
// Coefficients -> evaluations at g·ω^i (g = 7): scale coefficient i by g^i, then ntt.
void coset_ntt(std::span<Fr> a, const EvaluationDomain& d, parallel::ThreadPool& pool);
// Evaluations at g·ω^i -> coefficients: intt, then scale coefficient i by g^-i.
void coset_intt(std::span<Fr> a, const EvaluationDomain& d, parallel::ThreadPool& pool);

// a_i *= c·s^i (the coset shift and its inverse).
void scale_by_powers(std::span<Fr> a, const Fr& s, const Fr& c, parallel::ThreadPool& pool);

}  // namespace prooflab::poly
