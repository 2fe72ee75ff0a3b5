// Iterative radix-2 NTT: a bit-reversal permutation, then log n butterfly stages
// (Cooley–Tukey, decimation in time). Each stage is a parallel_for over its n/2 butterflies;
// early stages (short blocks) touch neighbouring memory, late ones stride across the array,
// which is why the per-stage split keeps every thread on contiguous runs of butterflies.
#include "core/poly/ntt.hpp"

#include <stdexcept>
#include <string>
#include <utility>

namespace prooflab::poly {
namespace {

constexpr std::size_t kMinChunk = 4096;  // butterflies per task: amortises the claim cost

void check_size(std::span<Fr> a, const EvaluationDomain& d, const char* what) {
  if (a.size() != d.size())
    throw std::invalid_argument(std::string(what) + ": input has " + std::to_string(a.size()) +
                                " elements, the domain " + std::to_string(d.size()));
}

std::size_t bit_reverse(std::size_t x, unsigned bits) {
  std::size_t r = 0;
  for (unsigned i = 0; i < bits; ++i) r |= ((x >> i) & 1) << (bits - 1 - i);
  return r;
}

void bit_reverse_permute(std::span<Fr> a, unsigned log_n, parallel::ThreadPool& pool) {
  pool.parallel_for(a.size(), kMinChunk, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      const std::size_t j = bit_reverse(i, log_n);
      if (i < j) std::swap(a[i], a[j]);
    }
  });
}

void transform(std::span<Fr> a, unsigned log_n, const std::vector<Fr>& twiddles,
               parallel::ThreadPool& pool) {
  const std::size_t n = a.size();
  if (n <= 1) return;
  bit_reverse_permute(a, log_n, pool);
  for (std::size_t half = 1; half < n; half <<= 1) {
    const std::size_t stride = n / (2 * half);  // twiddle index step for this stage
    pool.parallel_for(n / 2, kMinChunk, [&](std::size_t begin, std::size_t end) {
      for (std::size_t k = begin; k < end; ++k) {
        const std::size_t j = k & (half - 1);
        const std::size_t i0 = ((k - j) << 1) + j;  // block start + j
        const Fr t = a[i0 + half] * twiddles[j * stride];
        const Fr u = a[i0];
        a[i0] = u + t;
        a[i0 + half] = u - t;
      }
    });
  }
}

}  // namespace

void scale_by_powers(std::span<Fr> a, const Fr& s, const Fr& c, parallel::ThreadPool& pool) {
  pool.parallel_for(a.size(), kMinChunk, [&](std::size_t begin, std::size_t end) {
    Fr p = c * s.pow(field::BigInt<1>{begin});
    for (std::size_t i = begin; i < end; ++i) {
      a[i] *= p;
      p *= s;
    }
  });
}

void ntt(std::span<Fr> a, const EvaluationDomain& d, parallel::ThreadPool& pool) {
  check_size(a, d, "ntt");
  transform(a, d.log_size(), d.twiddles(), pool);
}

void intt(std::span<Fr> a, const EvaluationDomain& d, parallel::ThreadPool& pool) {
  check_size(a, d, "intt");
  transform(a, d.log_size(), d.inverse_twiddles(), pool);
  const Fr n_inv = d.size_inv();
  pool.parallel_for(a.size(), kMinChunk, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) a[i] *= n_inv;
  });
}

void coset_ntt(std::span<Fr> a, const EvaluationDomain& d, parallel::ThreadPool& pool) {
  check_size(a, d, "coset_ntt");
  scale_by_powers(a, EvaluationDomain::coset_shift(), Fr::one(), pool);
  transform(a, d.log_size(), d.twiddles(), pool);
}

void coset_intt(std::span<Fr> a, const EvaluationDomain& d, parallel::ThreadPool& pool) {
  check_size(a, d, "coset_intt");
  transform(a, d.log_size(), d.inverse_twiddles(), pool);
  // Fold 1/n into the coset unscaling: coefficient i times n^-1·g^-i.
  scale_by_powers(a, EvaluationDomain::coset_shift().inverse(), d.size_inv(), pool);
}

}  // namespace prooflab::poly
