// Number-theoretic transforms over a prime field F on a BasicEvaluationDomain<F>,
// multi-threaded over a pool. All transforms take and return natural order (the
// bit-reversal is folded in).
//
// Iterative radix-2 NTT: a bit-reversal permutation, then log n butterfly stages
// (Cooley–Tukey, decimation in time). The first 13 stages never leave an aligned block of
// 2^13 elements, so they run block by block (a parallel_for over blocks, all 13 stages while
// the block sits in L2); each later stage is a parallel_for over its n/2 butterflies, split
// so that every thread works on contiguous runs. Measured on the dev VM (BM_ntt, one thread):
// 2^20 313–330 → 261–265 ms, 2^16 13.2–13.4 → 12.1–12.2 ms with the blocking and a
// shift-and-mask bit reversal together; tiling the later stages as well (8 or 64 columns ×
// all rows) gained nothing — a butterfly then costs ~25 ns at 2^16 and 2^20 alike, the
// Fr multiplication (15 ns) and the additions, not memory.
//
// Written once for any field (the toy-field known-answer test runs it over r = 64513); the
// Fr instantiation is compiled once, in ntt.cpp (the extern template declarations at the end
// keep every other translation unit from instantiating it again).
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/parallel/thread_pool.hpp"
#include "core/poly/domain.hpp"

namespace prooflab::poly {

// The span parameters are non-deduced (std::type_identity_t): F comes from the domain or the
// scalar, so a std::vector<F> argument converts to the span as it did before the templates.
template <class F>
using Elements = std::span<std::type_identity_t<F>>;

// Coefficients -> evaluations at ω^0..ω^(n-1). a.size() must equal the domain size.
template <class F>
void ntt(Elements<F> a, const BasicEvaluationDomain<F>& d, parallel::ThreadPool& pool);
// Evaluations -> coefficients (includes the 1/n scaling).
template <class F>
void intt(Elements<F> a, const BasicEvaluationDomain<F>& d, parallel::ThreadPool& pool);
// Coefficients -> evaluations at g·ω^i (g = the domain's coset shift, 7 for Fr): scale
// coefficient i by g^i, then ntt.
template <class F>
void coset_ntt(Elements<F> a, const BasicEvaluationDomain<F>& d, parallel::ThreadPool& pool);
// Evaluations at g·ω^i -> coefficients: intt, then scale coefficient i by g^-i.
template <class F>
void coset_intt(Elements<F> a, const BasicEvaluationDomain<F>& d, parallel::ThreadPool& pool);

// a_i *= c·s^i (the coset shift and its inverse).
template <class F>
void scale_by_powers(Elements<F> a, const F& s, const F& c, parallel::ThreadPool& pool);

namespace detail {

inline constexpr std::size_t kNttMinChunk = 4096;  // butterflies per task: amortises the claim cost
inline constexpr unsigned kNttBlockLog = 13;       // 2^13 Fr = 256 KiB, a fraction of an L2

template <class F>
void check_ntt_size(std::span<F> a, const BasicEvaluationDomain<F>& d, const char* what) {
  if (a.size() != d.size())
    throw std::invalid_argument(std::string(what) + ": input has " + std::to_string(a.size()) +
                                " elements, the domain " + std::to_string(d.size()));
}

// The low `bits` bits of x reversed (1 ≤ bits ≤ 64): a 64-bit reversal by swapping halves,
// then the top bits.
inline std::size_t bit_reverse(std::size_t x, unsigned bits) {
  std::uint64_t v = x;
  v = ((v >> 1) & 0x5555555555555555ULL) | ((v & 0x5555555555555555ULL) << 1);
  v = ((v >> 2) & 0x3333333333333333ULL) | ((v & 0x3333333333333333ULL) << 2);
  v = ((v >> 4) & 0x0F0F0F0F0F0F0F0FULL) | ((v & 0x0F0F0F0F0F0F0F0FULL) << 4);
  v = ((v >> 8) & 0x00FF00FF00FF00FFULL) | ((v & 0x00FF00FF00FF00FFULL) << 8);
  v = ((v >> 16) & 0x0000FFFF0000FFFFULL) | ((v & 0x0000FFFF0000FFFFULL) << 16);
  v = (v >> 32) | (v << 32);
  return static_cast<std::size_t>(v >> (64 - bits));
}

template <class F>
void bit_reverse_permute(std::span<F> a, unsigned log_n, parallel::ThreadPool& pool) {
  pool.parallel_for(a.size(), kNttMinChunk, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      const std::size_t j = bit_reverse(i, log_n);
      if (i < j) std::swap(a[i], a[j]);
    }
  });
}

// Butterflies [begin, end) of stage `half` of the DIT transform on x (butterfly k: block
// k / half, offset j = k mod half, twiddle ω^(j·stride)).
template <class F>
inline void dit_stage(F* x, std::size_t half, std::size_t stride, std::size_t begin,
                      std::size_t end, const std::vector<F>& twiddles) {
  for (std::size_t k = begin; k < end; ++k) {
    const std::size_t j = k & (half - 1);
    const std::size_t i0 = ((k - j) << 1) + j;  // block start + j
    const F t = x[i0 + half] * twiddles[j * stride];
    const F u = x[i0];
    x[i0] = u + t;
    x[i0 + half] = u - t;
  }
}

template <class F>
void transform(std::span<F> a, unsigned log_n, const std::vector<F>& twiddles,
               parallel::ThreadPool& pool) {
  const std::size_t n = a.size();
  if (n <= 1) return;
  bit_reverse_permute(a, log_n, pool);
  // The first stages keep every butterfly inside an aligned block of 2^kNttBlockLog
  // elements: they run block by block, all of them while the block is in cache, instead of
  // one pass over the whole array per stage.
  const std::size_t block = std::size_t{1} << std::min(log_n, kNttBlockLog);
  pool.parallel_for(n / block, 1, [&](std::size_t b0, std::size_t b1) {
    for (std::size_t b = b0; b < b1; ++b)
      for (std::size_t half = 1; half < block; half <<= 1)
        dit_stage(a.data() + b * block, half, n / (2 * half), 0, block / 2, twiddles);
  });
  for (std::size_t half = block; half < n; half <<= 1) {
    const std::size_t stride = n / (2 * half);  // twiddle index step for this stage
    pool.parallel_for(n / 2, kNttMinChunk, [&](std::size_t begin, std::size_t end) {
      dit_stage(a.data(), half, stride, begin, end, twiddles);
    });
  }
}

}  // namespace detail

template <class F>
void scale_by_powers(Elements<F> a, const F& s, const F& c, parallel::ThreadPool& pool) {
  pool.parallel_for(a.size(), detail::kNttMinChunk, [&](std::size_t begin, std::size_t end) {
    F p = c * s.pow(field::BigInt<1>{begin});
    for (std::size_t i = begin; i < end; ++i) {
      a[i] *= p;
      p *= s;
    }
  });
}

template <class F>
void ntt(Elements<F> a, const BasicEvaluationDomain<F>& d, parallel::ThreadPool& pool) {
  detail::check_ntt_size(a, d, "ntt");
  detail::transform(a, d.log_size(), d.twiddles(), pool);
}

template <class F>
void intt(Elements<F> a, const BasicEvaluationDomain<F>& d, parallel::ThreadPool& pool) {
  detail::check_ntt_size(a, d, "intt");
  detail::transform(a, d.log_size(), d.inverse_twiddles(), pool);
  const F n_inv = d.size_inv();
  pool.parallel_for(a.size(), detail::kNttMinChunk, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) a[i] *= n_inv;
  });
}

template <class F>
void coset_ntt(Elements<F> a, const BasicEvaluationDomain<F>& d, parallel::ThreadPool& pool) {
  detail::check_ntt_size(a, d, "coset_ntt");
  scale_by_powers<F>(a, BasicEvaluationDomain<F>::coset_shift(), F::one(), pool);
  detail::transform(a, d.log_size(), d.twiddles(), pool);
}

template <class F>
void coset_intt(Elements<F> a, const BasicEvaluationDomain<F>& d, parallel::ThreadPool& pool) {
  detail::check_ntt_size(a, d, "coset_intt");
  detail::transform(a, d.log_size(), d.inverse_twiddles(), pool);
  // Fold 1/n into the coset unscaling: coefficient i times n^-1·g^-i.
  scale_by_powers<F>(a, BasicEvaluationDomain<F>::coset_shift().inverse(), d.size_inv(), pool);
}

extern template void ntt<Fr>(Elements<Fr>, const EvaluationDomain&, parallel::ThreadPool&);
extern template void intt<Fr>(Elements<Fr>, const EvaluationDomain&, parallel::ThreadPool&);
extern template void coset_ntt<Fr>(Elements<Fr>, const EvaluationDomain&, parallel::ThreadPool&);
extern template void coset_intt<Fr>(Elements<Fr>, const EvaluationDomain&, parallel::ThreadPool&);
extern template void scale_by_powers<Fr>(Elements<Fr>, const Fr&, const Fr&, parallel::ThreadPool&);

}  // namespace prooflab::poly
