// Number-theoretic transforms over a prime field F on a BasicEvaluationDomain<F>,
// multi-threaded over a pool. All transforms take and return natural order (the
// bit-reversal is folded in).
//
// Iterative radix-2 NTT: a bit-reversal permutation, then log n butterfly stages
// (Cooley–Tukey, decimation in time), arranged for the cache: the first 13 stages never leave
// an aligned block of 2^13 elements, so they run block by block (all 13 while the block sits
// in L2); the later stages run in rounds of up to 7, tile by tile (64 neighbouring columns ×
// all rows those stages mix). For Fr on CPUs with AVX-512 IFMA the butterflies of every stage
// with a half-distance of 8 or more run eight at a time in vector lanes (ntt_x8.hpp).
// Measured on the dev VM (BM_ntt, one thread, A/B runs): 2^20 313–330 ms (one pass per stage)
// → 261–265 (blocked first stages, shift-and-mask bit reversal) → 223–226 (vector
// butterflies) → 173–177 (tiled later stages; without the vector butterflies tiling gained
// nothing: the scalar butterfly, ~25 ns, was the bottleneck); 2^16 13.2 → 7.2 ms.
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
#include "core/poly/ntt_x8.hpp"

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
inline constexpr unsigned kNttTileColumnsLog = 6;  // later stages: tiles 64 elements wide
inline constexpr std::size_t kNttTileColumns = std::size_t{1} << kNttTileColumnsLog;

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

// Butterflies (lo[c], hi[c]) ← (lo[c] + t, lo[c] − t), t = hi[c]·ω^((j0 + c)·stride), for
// c < count: eight at a time in vector lanes for Fr where the CPU has AVX-512 IFMA.
template <class F>
inline void butterfly_run(F* lo, F* hi, const std::vector<F>& twiddles, std::size_t j0,
                          std::size_t stride, std::size_t count) {
  std::size_t c = 0;
  if constexpr (std::is_same_v<F, field::Fr>) {
    static const bool x8 = ntt_x8_available();
    if (x8 && count >= 8) {
      c = count & ~std::size_t{7};
      butterflies_x8(lo, hi, twiddles.data() + j0 * stride, stride, c);
    }
  }
  for (; c < count; ++c) {
    const F t = hi[c] * twiddles[(j0 + c) * stride];
    const F u = lo[c];
    lo[c] = u + t;
    hi[c] = u - t;
  }
}

// Butterflies [begin, end) of stage `half` of the DIT transform on x (butterfly k: block
// k / half, offset j = k mod half, twiddle ω^(j·stride)), as runs within blocks.
template <class F>
inline void dit_stage(F* x, std::size_t half, std::size_t stride, std::size_t begin,
                      std::size_t end, const std::vector<F>& twiddles) {
  for (std::size_t k = begin; k < end;) {
    const std::size_t j = k & (half - 1);
    const std::size_t i0 = ((k - j) << 1) + j;  // block start + j
    const std::size_t count = std::min(half - j, end - k);
    butterfly_run(x + i0, x + i0 + half, twiddles, j, stride, count);
    k += count;
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
  // The later stages pair elements 2^s apart. Stages [s0, s1) only mix elements that differ
  // in bits s0 .. s1 − 1, so they too run tile by tile: kNttTileColumns neighbouring columns
  // (low bits) × all 2^(s1 − s0) rows (middle bits), every stage while the tile is in cache.
  for (unsigned s0 = std::min(log_n, kNttBlockLog); s0 < log_n;) {
    const unsigned s1 = std::min(log_n, s0 + kNttBlockLog - kNttTileColumnsLog);
    const std::size_t rows = std::size_t{1} << (s1 - s0), row_stride = std::size_t{1} << s0;
    const std::size_t tiles_per_hi = row_stride / kNttTileColumns;
    pool.parallel_for((n >> s1) * tiles_per_hi, 1, [&](std::size_t t0, std::size_t t1) {
      for (std::size_t t = t0; t < t1; ++t) {
        const std::size_t base = (t / tiles_per_hi << s1) + (t % tiles_per_hi) * kNttTileColumns;
        for (unsigned st = s0; st < s1; ++st) {
          const std::size_t half = std::size_t{1} << st, row_half = std::size_t{1} << (st - s0);
          for (std::size_t row = 0; row < rows; ++row) {
            if (row & row_half) continue;  // the upper element of a pair
            const std::size_t i0 = base + row * row_stride;
            const std::size_t j0 = (row & (row_half - 1)) * row_stride + (i0 & (row_stride - 1));
            butterfly_run(a.data() + i0, a.data() + i0 + half, twiddles, j0, n / (2 * half),
                          kNttTileColumns);
          }
        }
      }
    });
    s0 = s1;
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
