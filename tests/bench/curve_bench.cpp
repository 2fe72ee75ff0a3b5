// Curve microbenchmarks: one group operation per iteration on a dependent chain.
#include <benchmark/benchmark.h>

#include "core/curve/g1.hpp"
#include "core/curve/g2.hpp"

namespace {

using namespace prooflab::curve;

template <class Jac>
void BM_add_mixed(benchmark::State& state, const Jac& start, const typename Jac::AffinePoint& q) {
  Jac acc = start;
  for (auto _ : state) {
    acc = acc.add_mixed(q);
    benchmark::DoNotOptimize(acc);
  }
}

void BM_g1_add_mixed(benchmark::State& state) {
  const auto g = G1Jacobian::from_affine(g1_generator());
  BM_add_mixed(state, g.dbl().dbl(), g1_generator());
}

void BM_g2_add_mixed(benchmark::State& state) {
  const auto g = G2Jacobian::from_affine(g2_generator());
  BM_add_mixed(state, g.dbl().dbl(), g2_generator());
}

void BM_g1_xyzz_add_mixed(benchmark::State& state) {
  auto acc = G1Xyzz::from_affine(g1_generator()).dbl().dbl();
  const auto q = g1_generator();
  for (auto _ : state) {
    acc = acc.add_mixed(q);
    benchmark::DoNotOptimize(acc);
  }
}

void BM_g1_double(benchmark::State& state) {
  auto acc = G1Jacobian::from_affine(g1_generator());
  for (auto _ : state) {
    acc = acc.dbl();
    benchmark::DoNotOptimize(acc);
  }
}

void BM_g1_add(benchmark::State& state) {
  const auto g = G1Jacobian::from_affine(g1_generator());
  auto acc = g.dbl().dbl();
  const auto q = g.dbl().add(g);  // Z != 1: the general addition
  for (auto _ : state) {
    acc = acc.add(q);
    benchmark::DoNotOptimize(acc);
  }
}

void BM_g1_subgroup_check(benchmark::State& state) {
  const auto g = G1Jacobian::from_affine(g1_generator()).dbl();
  for (auto _ : state) benchmark::DoNotOptimize(g1_is_in_subgroup(g));
}

void BM_g2_subgroup_check(benchmark::State& state) {
  const auto g = G2Jacobian::from_affine(g2_generator()).dbl();
  for (auto _ : state) benchmark::DoNotOptimize(g2_is_in_subgroup(g));
}

}  // namespace

BENCHMARK(BM_g1_add_mixed);
BENCHMARK(BM_g1_xyzz_add_mixed);
BENCHMARK(BM_g1_add);
BENCHMARK(BM_g1_double);
BENCHMARK(BM_g2_add_mixed);
BENCHMARK(BM_g1_subgroup_check)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_g2_subgroup_check)->Unit(benchmark::kMicrosecond);
