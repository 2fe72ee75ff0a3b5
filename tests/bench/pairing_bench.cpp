#include <benchmark/benchmark.h>

#include <array>

#include "core/pairing/pairing.hpp"

namespace {

using namespace prooflab;

void BM_pairing(benchmark::State& state) {
  const auto p = curve::g1_generator();
  const auto q = curve::g2_generator();
  for (auto _ : state) benchmark::DoNotOptimize(pairing::pairing(p, q));
}

void BM_miller_loop(benchmark::State& state) {
  const std::array<std::pair<curve::G1Affine, curve::G2Affine>, 1> pq{
      {{curve::g1_generator(), curve::g2_generator()}}};
  for (auto _ : state) benchmark::DoNotOptimize(pairing::multi_miller_loop(pq));
}

void BM_final_exponentiation(benchmark::State& state) {
  const std::array<std::pair<curve::G1Affine, curve::G2Affine>, 1> pq{
      {{curve::g1_generator(), curve::g2_generator()}}};
  const auto f = pairing::multi_miller_loop(pq);
  for (auto _ : state) benchmark::DoNotOptimize(pairing::final_exponentiation(f));
}

// The verifier's shape: three pairs through one Miller loop and one final exponentiation.
void BM_groth16_verify_pairings(benchmark::State& state) {
  const auto p = curve::g1_generator();
  const auto q = curve::g2_generator();
  const std::array<std::pair<curve::G1Affine, curve::G2Affine>, 3> pq{{{p, q}, {p, q}, {p, q}}};
  for (auto _ : state) benchmark::DoNotOptimize(pairing::pairing_product_is_one(pq));
}

}  // namespace

BENCHMARK(BM_pairing)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_miller_loop)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_final_exponentiation)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_groth16_verify_pairings)->Unit(benchmark::kMicrosecond);
