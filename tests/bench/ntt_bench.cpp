#include <benchmark/benchmark.h>

#include <optional>
#include <random>
#include <vector>

#include "core/poly/ntt.hpp"

namespace {

using prooflab::field::Fr;

void run_ntt(benchmark::State& state, unsigned threads) {
  const prooflab::poly::EvaluationDomain d(static_cast<unsigned>(state.range(0)));
  // threads: 1 = the calling thread alone (gbench's cpu_time is its clock), 0 = one per core.
  std::optional<prooflab::parallel::ThreadPool> pool_storage;
  if (threads == 1) {
    pool_storage.emplace(prooflab::parallel::kOnCaller, "ntt-bench");
  } else {
    pool_storage.emplace(threads, "ntt-bench");
  }
  auto& pool = *pool_storage;
  std::mt19937_64 rng(1);
  std::vector<Fr> a(d.size());
  for (auto& x : a) x = Fr::random(rng);
  for (auto _ : state) {
    prooflab::poly::ntt(a, d, pool);
    benchmark::DoNotOptimize(a.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(d.size()));
  state.counters["threads"] = pool.size();
}

void BM_ntt(benchmark::State& state) { run_ntt(state, 1); }
void BM_ntt_mt(benchmark::State& state) { run_ntt(state, 0); }

}  // namespace

BENCHMARK(BM_ntt)->DenseRange(10, 20, 2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ntt_mt)->DenseRange(10, 20, 2)->Unit(benchmark::kMillisecond)->UseRealTime();
