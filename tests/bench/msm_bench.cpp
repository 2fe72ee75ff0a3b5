// MSM benchmarks. Every MSM figure also comes as adds_per_point = time / (n × t_add), with
// t_add the Jacobian mixed addition of the same group timed by a calibration loop inside
// this process, so the ratio compares like with like on a noisy shared machine (blst's
// Pippenger is ~16 on G1 at 2^16, shared/REFERENCE.md: 655 ms / 610 ns / 2^16).
//
//   BM_msm_g1/<log2 n>            one thread (a pool of 1); 8-lane IFMA adder where the CPU
//                                 has it (counter ifma = 1; so for every MSM row)
//   BM_msm_g1_scalar/<log2 n>     one thread, the scalar adder (MsmConfig::simd off): the
//                                 same-run reference for what the IFMA adder gains
//   BM_msm_g1_mt/<log2 n>         a pool of every hardware thread
//   BM_msm_g1_window/<log2 n>/<c> one thread, forced window width (cost-model calibration)
//   BM_msm_g1_noglv/<log2 n>      one thread, without the GLV split
//   BM_msm_g2/<log2 n>, BM_msm_g2_scalar/<log2 n>, BM_msm_g2_mt/<log2 n>
//   BM_batch_add_g1/<log2 n>      one thread, half the bits set; per selected point
//
// Times are manual: one-thread benchmarks (and their t_add) use the thread's CPU time, so a
// shared machine's preemption does not inflate them; pool benchmarks use wall time.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <type_traits>
#include <vector>

#include <time.h>

#include "core/curve/g1.hpp"
#include "core/curve/g2.hpp"
#include "core/msm/batch_affine_x8.hpp"
#include "core/msm/msm.hpp"
#include "core/parallel/thread_pool.hpp"

namespace {

using namespace prooflab;
using curve::G1Curve;
using curve::G2Curve;
using msm::Scalar;

template <class Curve>
curve::Affine<Curve> generator() {
  if constexpr (std::is_same_v<Curve, G1Curve>)
    return curve::g1_generator();
  else
    return curve::g2_generator();
}

// The clock of a benchmark: the calling thread's CPU time when everything runs on it, wall
// time when a pool shares the work.
double now_seconds(bool thread_cpu) {
  timespec ts;
  clock_gettime(thread_cpu ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Seconds per Jacobian mixed addition on a dependent chain (the shape of BM_g1_add_mixed):
// the best of three short runs. Measured again next to every timed iteration, so that slow
// drifts in a shared machine's speed cancel in the ratio.
template <class Curve>
double mixed_add_seconds(bool thread_cpu) {
  using Jac = curve::Jacobian<Curve>;
  const auto q = generator<Curve>();
  Jac acc = Jac::from_affine(q).dbl().dbl();
  double best = 1e9;
  for (int rep = 0; rep < 3; ++rep) {
    constexpr int kIters = 2000;
    const double t0 = now_seconds(thread_cpu);
    for (int i = 0; i < kIters; ++i) {
      acc = acc.add_mixed(q);
      benchmark::DoNotOptimize(acc);
    }
    best = std::min(best, (now_seconds(thread_cpu) - t0) / kIters);
  }
  return best;
}

// Times one call of fn per iteration and sets adds_per_point = Σ time / Σ (points × t_add),
// with t_add measured just before each call.
template <class Curve, class Fn>
void time_against_mixed_add(benchmark::State& state, bool thread_cpu, std::size_t points,
                            const Fn& fn) {
  double total = 0, reference = 0;
  for (auto _ : state) {
    reference += static_cast<double>(points) * mixed_add_seconds<Curve>(thread_cpu);
    const double t0 = now_seconds(thread_cpu);
    fn();
    const double dt = now_seconds(thread_cpu) - t0;
    state.SetIterationTime(dt);
    total += dt;
  }
  const double iters = static_cast<double>(state.iterations());
  state.counters["adds_per_point"] = total / reference;
  state.counters["ns_per_point"] = 1e9 * total / iters / static_cast<double>(points);
  state.counters["t_add_ns"] = 1e9 * reference / iters / static_cast<double>(points);
}

// 2^log_n distinct subgroup points, cached per group: a chain P + i·S of mixed additions,
// converted with one batch inversion (no per-point scalar multiplication).
template <class Curve>
std::span<const curve::Affine<Curve>> bases(unsigned log_n) {
  static std::vector<curve::Affine<Curve>> cache;
  const std::size_t n = std::size_t{1} << log_n;
  if (cache.size() < n) {
    using Jac = curve::Jacobian<Curve>;
    std::mt19937_64 rng(0xba5e5);
    const Jac g = Jac::from_affine(generator<Curve>());
    const auto step = curve::scalar_mul(g, field::Fr::random(rng)).to_affine();
    Jac p = curve::scalar_mul(g, field::Fr::random(rng));
    std::vector<Jac> jac(n);
    for (auto& q : jac) {
      q = p;
      p = p.add_mixed(step);
    }
    cache.resize(n);
    curve::batch_to_affine<Curve>(jac, cache);
  }
  return std::span<const curve::Affine<Curve>>(cache).first(n);
}

// Uniform scalars below r from a seeded stream, cached.
std::span<const Scalar> scalars(unsigned log_n) {
  static std::vector<Scalar> cache;
  const std::size_t n = std::size_t{1} << log_n;
  if (cache.size() < n) {
    std::mt19937_64 rng(0x5ca1a7);
    cache.resize(n);
    for (auto& k : cache) {
      do {
        for (auto& limb : k) limb = rng();
        k[3] &= (std::uint64_t{1} << 63) - 1;  // 255 bits, then reject >= r
      } while (field::bigint_compare(k, field::FrParams::kModulus) >= 0);
    }
  }
  return std::span<const Scalar>(cache).first(n);
}

template <class Curve>
void run_msm(benchmark::State& state, unsigned threads, const msm::MsmConfig& cfg) {
  const unsigned log_n = static_cast<unsigned>(state.range(0));
  const auto b = bases<Curve>(log_n);
  const auto k = scalars(log_n);
  // threads: 1 = the calling thread alone (timed by its CPU clock), 0 = one worker per core.
  std::optional<parallel::ThreadPool> pool;
  if (threads == 1) {
    pool.emplace(parallel::kOnCaller, "msm-bench");
  } else {
    pool.emplace(threads, "msm-bench");
  }
  time_against_mixed_add<Curve>(state, threads == 1, b.size(), [&] {
    auto r = msm::msm<Curve>(b, k, *pool, cfg);
    benchmark::DoNotOptimize(r);
  });
  state.counters["threads"] = pool->size();
  state.counters["ifma"] = cfg.simd && msm::BatchAffineAdderX8<Curve>::available();
}

void BM_msm_g1(benchmark::State& state) { run_msm<G1Curve>(state, 1, {}); }
void BM_msm_g1_mt(benchmark::State& state) { run_msm<G1Curve>(state, 0, {}); }
void BM_msm_g1_scalar(benchmark::State& state) {
  msm::MsmConfig cfg;
  cfg.simd = false;
  run_msm<G1Curve>(state, 1, cfg);
}
void BM_msm_g1_noglv(benchmark::State& state) {
  msm::MsmConfig cfg;
  cfg.use_endomorphism = false;
  run_msm<G1Curve>(state, 1, cfg);
}
void BM_msm_g1_window(benchmark::State& state) {
  msm::MsmConfig cfg;
  cfg.window_bits = static_cast<unsigned>(state.range(1));
  run_msm<G1Curve>(state, 1, cfg);
}
void BM_msm_g2(benchmark::State& state) { run_msm<G2Curve>(state, 1, {}); }
void BM_msm_g2_scalar(benchmark::State& state) {
  msm::MsmConfig cfg;
  cfg.simd = false;
  run_msm<G2Curve>(state, 1, cfg);
}
void BM_msm_g2_mt(benchmark::State& state) { run_msm<G2Curve>(state, 0, {}); }

void BM_batch_add_g1(benchmark::State& state) {
  const unsigned log_n = static_cast<unsigned>(state.range(0));
  const auto b = bases<G1Curve>(log_n);
  std::mt19937_64 rng(0xb17);
  std::vector<std::uint64_t> bitmap((b.size() + 63) / 64);
  std::size_t selected = 0;
  for (auto& w : bitmap) {
    w = rng();
    selected += static_cast<std::size_t>(std::popcount(w));
  }
  parallel::ThreadPool pool(parallel::kOnCaller, "msm-bench");
  time_against_mixed_add<G1Curve>(state, true, selected, [&] {
    auto r = msm::batch_add<G1Curve>(b, bitmap, pool);
    benchmark::DoNotOptimize(r);
  });
}

}  // namespace

BENCHMARK(BM_msm_g1)
    ->DenseRange(10, 18, 2)
    ->Arg(20)
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime();
BENCHMARK(BM_msm_g1_scalar)
    ->DenseRange(10, 18, 2)
    ->Arg(20)
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime();
BENCHMARK(BM_msm_g1_mt)->DenseRange(10, 22, 2)->Unit(benchmark::kMillisecond)->UseManualTime();
BENCHMARK(BM_msm_g1_noglv)->DenseRange(12, 18, 2)->Unit(benchmark::kMillisecond)->UseManualTime();
BENCHMARK(BM_msm_g1_window)
    ->ArgsProduct({{12, 16, 18}, benchmark::CreateDenseRange(6, 20, 1)})
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime();
BENCHMARK(BM_msm_g2)->DenseRange(10, 16, 2)->Unit(benchmark::kMillisecond)->UseManualTime();
BENCHMARK(BM_msm_g2_scalar)->DenseRange(10, 16, 2)->Unit(benchmark::kMillisecond)->UseManualTime();
BENCHMARK(BM_msm_g2_mt)->DenseRange(10, 18, 2)->Unit(benchmark::kMillisecond)->UseManualTime();
BENCHMARK(BM_batch_add_g1)->DenseRange(12, 20, 4)->Unit(benchmark::kMillisecond)->UseManualTime();
