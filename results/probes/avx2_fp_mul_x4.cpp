// Probe (not part of the build): can a 4-lane AVX2 Montgomery multiplication over BLS12-381's
// Fp beat the scalar 6 x 64-bit CIOS one (core/field/mont.hpp) in throughput? The scalar MSM
// path (MsmConfig::simd = false) is ~76 % Fp multiplications (results/2026-11-30-msm-cpu.md),
// so its adds/point can only fall below the scalar floor if a batch-affine flush gets its
// multiplications cheaper than the scalar chain the unit (one Jacobian mixed addition) uses.
//
// Radix 2^29, 14 limbs (406 bits), R' = 2^406, operand-scanning Montgomery reduction: per
// round i, t += a_i·b, m = t_0·(-p^-1) mod 2^29, t += m·p, t >>= 29 (29-bit limbs give
// 58-bit products; 28 of them per accumulator stay below 2^63, so no carry is needed inside
// the loop). 406 vpmuludq per 4 products (102 per lane) against 72 mulx for the scalar one.
// Result in [0, 2p) for inputs in [0, 2p) (lazy, as the 8-lane IFMA code).
//
// Checked against MontField<FpParams> on random inputs: c = mul(a, b) must satisfy
// c·2^406 ≡ a·b (mod p). Timed as dependent chains (one vector = 4 lanes; two vectors
// interleaved), against a dependent chain of scalar Fp multiplications, thread CPU time.
//
//   clang++ -std=c++20 -O3 -mavx2 -mbmi2 -madx -I. results/probes/avx2_fp_mul_x4.cpp -o /tmp/avx2_probe
#include <immintrin.h>
#include <time.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <random>

#include "core/field/fp.hpp"

using prooflab::field::BigInt;
using prooflab::field::Fp;

namespace {

constexpr int kLimbs = 14;
constexpr int kBits = 29;
constexpr std::uint64_t kMask = (std::uint64_t{1} << kBits) - 1;

using Limbs29 = std::array<std::uint64_t, kLimbs>;

Limbs29 to_radix29(const BigInt<6>& v) {
  Limbs29 out{};
  for (int i = 0; i < kLimbs; ++i) {
    const int bit = i * kBits, word = bit / 64, shift = bit % 64;
    std::uint64_t x = word < 6 ? v[word] >> shift : 0;
    if (shift + kBits > 64 && word + 1 < 6) x |= v[word + 1] << (64 - shift);
    out[i] = x & kMask;
  }
  return out;
}

BigInt<6> from_radix29(const Limbs29& l) {  // l normalised: every limb < 2^29, value < 2^384
  BigInt<6> v{};
  for (int i = 0; i < kLimbs; ++i) {
    const int bit = i * kBits, word = bit / 64, shift = bit % 64;
    if (word < 6) v[word] |= l[i] << shift;
    if (shift + kBits > 64 && word + 1 < 6) v[word + 1] |= l[i] >> (64 - shift);
  }
  return v;
}

struct Vec {
  __m256i limb[kLimbs];  // limb j of four values
};

const Limbs29 kP = to_radix29(prooflab::field::FpParams::kModulus);
// -p^-1 mod 2^29 from the 64-bit one.
const std::uint64_t kPInv29 = prooflab::field::FpParams::kInv & kMask;

__attribute__((noinline)) void mul_x4(Vec& out, const Vec& a, const Vec& b) {
  __m256i t[kLimbs + 1];
  for (auto& x : t) x = _mm256_setzero_si256();
  const __m256i mask = _mm256_set1_epi64x(kMask);
  const __m256i pinv = _mm256_set1_epi64x(kPInv29);
  __m256i p[kLimbs];
  for (int j = 0; j < kLimbs; ++j) p[j] = _mm256_set1_epi64x(kP[j]);
#pragma clang loop unroll(full)
  for (int i = 0; i < kLimbs; ++i) {
    const __m256i ai = a.limb[i];
#pragma clang loop unroll(full)
    for (int j = 0; j < kLimbs; ++j) t[j] = _mm256_add_epi64(t[j], _mm256_mul_epu32(ai, b.limb[j]));
    const __m256i m = _mm256_and_si256(_mm256_mul_epu32(t[0], pinv), mask);
#pragma clang loop unroll(full)
    for (int j = 0; j < kLimbs; ++j) t[j] = _mm256_add_epi64(t[j], _mm256_mul_epu32(m, p[j]));
    // t_0 is now divisible by 2^29: carry it into t_1 and shift the accumulators down.
    const __m256i carry = _mm256_srli_epi64(t[0], kBits);
#pragma clang loop unroll(full)
    for (int j = 0; j < kLimbs - 1; ++j) t[j] = t[j + 1];
    t[0] = _mm256_add_epi64(t[0], carry);
    t[kLimbs - 1] = _mm256_setzero_si256();
  }
  // Normalise to 29-bit limbs.
  __m256i carry = _mm256_setzero_si256();
  for (int j = 0; j < kLimbs; ++j) {
    const __m256i x = _mm256_add_epi64(t[j], carry);
    out.limb[j] = _mm256_and_si256(x, mask);
    carry = _mm256_srli_epi64(x, kBits);
  }
}

double cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

Vec pack(const std::array<Fp, 4>& x) {  // the Montgomery limbs, as integers
  Vec v;
  for (int j = 0; j < kLimbs; ++j) {
    std::uint64_t lane[4];
    for (int k = 0; k < 4; ++k) lane[k] = to_radix29(x[k].mont)[j];
    v.limb[j] = _mm256_setr_epi64x(lane[0], lane[1], lane[2], lane[3]);
  }
  return v;
}

std::array<BigInt<6>, 4> unpack(const Vec& v) {
  std::array<Limbs29, 4> l;
  for (int j = 0; j < kLimbs; ++j) {
    alignas(32) std::uint64_t lane[4];
    _mm256_store_si256(reinterpret_cast<__m256i*>(lane), v.limb[j]);
    for (int k = 0; k < 4; ++k) l[k][j] = lane[k];
  }
  std::array<BigInt<6>, 4> out;
  for (int k = 0; k < 4; ++k) out[k] = from_radix29(l[k]);
  return out;
}

}  // namespace

int main() {
  std::mt19937_64 rng(7);
  Fp two_406 = Fp::one();
  for (int i = 0; i < 406; ++i) two_406 = two_406.dbl();

  // Correctness: integers a, b < p (the Montgomery limbs of random elements, read as plain
  // integers); c = mul_x4(a, b) must be < 2p and c·2^406 ≡ a·b (mod p).
  int mismatches = 0, checked = 0;
  for (int rep = 0; rep < 2000; ++rep) {
    std::array<Fp, 4> a, b;
    for (int k = 0; k < 4; ++k) {
      a[k] = rep == 0 ? -Fp::one() : Fp::random(rng);
      b[k] = rep == 0 ? -Fp::one() : Fp::random(rng);
    }
    Vec va = pack(a), vb = pack(b), vc;
    mul_x4(vc, va, vb);
    const auto c = unpack(vc);
    for (int k = 0; k < 4; ++k) {
      BigInt<6> ci = c[k];
      Fp lhs = Fp::from_mont(ci);
      // c may be in [p, 2p): subtract p once for the comparison.
      BigInt<6> t = ci;
      if (prooflab::field::bigint_sub(t, prooflab::field::FpParams::kModulus) == 0) lhs = Fp::from_mont(t);
      // As plain integers: Fp::from_canonical(x) represents x. c·2^406 vs a·b:
      const Fp cv = Fp::from_canonical(lhs.mont) * two_406;
      const Fp ab = Fp::from_canonical(a[k].mont) * Fp::from_canonical(b[k].mont);
      mismatches += !(cv == ab);
      ++checked;
    }
  }
  std::printf("correctness: %d mismatches in %d products\n", mismatches, checked);

  // Throughput.
  std::array<Fp, 4> a, b;
  for (int k = 0; k < 4; ++k) a[k] = Fp::random(rng), b[k] = Fp::random(rng);
  Vec x = pack(a), y = pack(b), x2 = pack(b);
  constexpr int kIters = 200000;
  for (int rep = 0; rep < 3; ++rep) {
    double t0 = cpu_seconds();
    for (int i = 0; i < kIters; ++i) mul_x4(x, x, y);
    const double one_chain = (cpu_seconds() - t0) / kIters;
    t0 = cpu_seconds();
    for (int i = 0; i < kIters; ++i) {
      mul_x4(x, x, y);
      mul_x4(x2, x2, y);
    }
    const double two_chains = (cpu_seconds() - t0) / kIters / 2;
    Fp s = a[0];
    t0 = cpu_seconds();
    for (int i = 0; i < kIters; ++i) s *= b[0];
    const double scalar = (cpu_seconds() - t0) / kIters;
    volatile std::uint64_t sink = s.mont[0] + unpack(x)[0][0] + unpack(x2)[0][0];
    (void)sink;
    std::printf(
        "rep %d: 4-lane AVX2 %.1f ns per vector (%.2f ns per lane), two vectors %.2f ns per "
        "lane; scalar CIOS %.2f ns; lane/scalar %.2f\n",
        rep, 1e9 * one_chain, 1e9 * one_chain / 4, 1e9 * two_chains / 4, 1e9 * scalar,
        (two_chains / 4) / scalar);
  }
}
