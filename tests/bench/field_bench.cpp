// Field microbenchmarks. Each loop is a dependent chain (x = x op y), so the figure is the
// latency of one operation — the same shape as blst's published per-operation figures.
#include <benchmark/benchmark.h>
#include <gmp.h>

#include <random>

#include "core/field/fp.hpp"
#include "core/field/fp2.hpp"
#include "core/field/fr.hpp"

namespace {

using prooflab::field::Fp;
using prooflab::field::Fp2;
using prooflab::field::Fr;

template <class F>
void BM_mul(benchmark::State& state) {
  std::mt19937_64 rng(1);
  F x = F::random(rng);
  const F y = F::random(rng);
  for (auto _ : state) {
    x *= y;
    benchmark::DoNotOptimize(x);
  }
}

void BM_fp_mul(benchmark::State& state) { BM_mul<Fp>(state); }
void BM_fr_mul(benchmark::State& state) { BM_mul<Fr>(state); }
void BM_fp2_mul(benchmark::State& state) { BM_mul<Fp2>(state); }

void BM_fp_sqr(benchmark::State& state) {
  std::mt19937_64 rng(2);
  Fp x = Fp::random(rng);
  for (auto _ : state) {
    x = x.square();
    benchmark::DoNotOptimize(x);
  }
}

void BM_fp_add(benchmark::State& state) {
  std::mt19937_64 rng(3);
  Fp x = Fp::random(rng);
  const Fp y = Fp::random(rng);
  for (auto _ : state) {
    x += y;
    benchmark::DoNotOptimize(x);
  }
}

void BM_fp_inv(benchmark::State& state) {
  std::mt19937_64 rng(4);
  Fp x = Fp::random(rng);
  const Fp y = Fp::random(rng);
  for (auto _ : state) {
    x = x.inverse() + y;  // + y keeps the chain away from a fixed point
    benchmark::DoNotOptimize(x);
  }
}

// The in-run yardstick: GMP's general-purpose mpz multiply and remainder of the same
// 381-bit operands. Machine speed cancels in the ratio BM_fp_mul / this.
void BM_fp_mul_gmp_reference(benchmark::State& state) {
  std::mt19937_64 rng(5);
  const auto p = prooflab::field::FpParams::kModulus;
  const auto a = Fp::random(rng).to_canonical(), b = Fp::random(rng).to_canonical();
  mpz_t mp, ma, mb, prod;
  mpz_inits(mp, ma, mb, prod, nullptr);
  mpz_import(mp, p.size(), -1, 8, 0, 0, p.data());
  mpz_import(ma, a.size(), -1, 8, 0, 0, a.data());
  mpz_import(mb, b.size(), -1, 8, 0, 0, b.data());
  for (auto _ : state) {
    mpz_mul(prod, ma, mb);
    mpz_tdiv_r(ma, prod, mp);
    benchmark::DoNotOptimize(ma);
  }
  mpz_clears(mp, ma, mb, prod, nullptr);
}

}  // namespace

BENCHMARK(BM_fp_mul);
BENCHMARK(BM_fp_sqr);
BENCHMARK(BM_fp_add);
BENCHMARK(BM_fp_inv);
BENCHMARK(BM_fr_mul);
BENCHMARK(BM_fp2_mul);
BENCHMARK(BM_fp_mul_gmp_reference);
