// What the counter sampler costs the work it watches (results/2026-11-30-probe-cost.md).
//
//   BM_counters_probe_pass/<KiB>      one pass of the bandwidth probe: the sampler thread's
//                                     work per sample (CPU time: the thread's own; divided by
//                                     the period, the share of one core the probe takes)
//   BM_counters_proc_sample           one `proc` sample (/proc/interrupts, stat, statm, getrusage)
//   BM_counters_engine_batch/<mode>   a small engine batch: porep-like 2^10 constraints, 4
//                                     proofs x 3 partitions, 2 in flight, TIMELINE on (wall)
//   BM_counters_msm_pool/<mode>       G1 MSM of 2^15 points on a pool of every hardware thread
//   BM_counters_stream_pool/<mode>    read+write of 256 MiB on every hardware thread (memory bound)
//
// mode: 0 = no sampler; 1 = probe + proc every 100 ms (the default; on machines without
// PMU access likwid / perf_uncore end at start and cost nothing after); 2 = the same every
// 10 ms (ten times the default rate). Compare modes as ratios within one run, with
// --benchmark_enable_random_interleaving=true and repetitions, so drift cancels.
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <memory>
#include <random>
#include <vector>

#include "core/circuits/circuit.hpp"
#include "core/curve/g1.hpp"
#include "core/engine/cpu_backend.hpp"
#include "core/engine/engine.hpp"
#include "core/groth16/setup.hpp"
#include "core/msm/msm.hpp"
#include "core/parallel/thread_pool.hpp"
#include "harness/counters/bandwidth_probe.hpp"
#include "harness/counters/proc_source.hpp"
#include "harness/counters/sampler.hpp"

namespace {

using namespace prooflab;
namespace counters = prooflab::harness::counters;
namespace fs = std::filesystem;

fs::path scratch_dir() {
  static const fs::path dir = [] {
    const fs::path d =
        fs::temp_directory_path() / ("prooflab_counters_bench_" + std::to_string(::getpid()));
    fs::create_directories(d);
    return d;
  }();
  return dir;
}

// The sampler of a mode, running until destroyed (nullptr for mode 0).
std::unique_ptr<counters::CounterSampler> start_sampler(int mode) {
  if (mode == 0) return nullptr;
  counters::CounterOptions o;
  o.selection = "probe,proc";
  o.sources = {"probe", "proc"};
  o.period_ms = mode == 1 ? 100 : 10;
  return std::make_unique<counters::CounterSampler>(scratch_dir() / "counters.csv",
                                                    counters::monotonic_ns(), o);
}

// The sampler's own CPU time per second of the benchmark (ms/s): its cost measured from the
// inside, which the machine's other load does not blur the way it blurs the A/B ratio.
void stop_sampler(benchmark::State& state, std::unique_ptr<counters::CounterSampler>& sampler,
                  std::int64_t start_ns) {
  if (!sampler) return;
  sampler->stop();
  const double wall_s = static_cast<double>(counters::monotonic_ns() - start_ns) * 1e-9;
  state.counters["sampler_cpu_ms_per_s"] = 1e3 * sampler->thread_cpu_seconds() / wall_s;
}

void label(benchmark::State& state) {
  static const char* const kNames[] = {"no sampler", "probe+proc @100ms", "probe+proc @10ms"};
  state.SetLabel(kNames[state.range(0)]);
}

void BM_counters_probe_pass(benchmark::State& state) {
  counters::BandwidthProbe probe(static_cast<std::uint64_t>(state.range(0)) << 10, 0);
  if (!probe.start(0).used) state.SkipWithError("probe unavailable");
  double gbps = 0;
  for (auto _ : state) gbps += probe.run_once();
  state.counters["GB_per_s"] = gbps / static_cast<double>(state.iterations());
  probe.stop();
}
BENCHMARK(BM_counters_probe_pass)->Arg(1024)->Arg(4096)->Arg(16384)->Unit(benchmark::kMicrosecond);

void BM_counters_proc_sample(benchmark::State& state) {
  counters::ProcSource src;
  src.start(counters::monotonic_ns());
  std::vector<counters::Reading> out;
  for (auto _ : state) {
    out.clear();
    src.sample(counters::monotonic_ns(), out);
    benchmark::DoNotOptimize(out.data());
  }
}
BENCHMARK(BM_counters_proc_sample)->Unit(benchmark::kMicrosecond);

struct EngineSetup {
  parallel::ThreadPool pool{0};
  std::unique_ptr<circuits::Circuit> circuit = circuits::make_circuit("porep-like", 1024, 0);
  r1cs::R1cs cs = circuits::synthesize_shape(*circuit);
  groth16::ProvingKey pk = groth16::generate_parameters(cs, groth16::ToxicWaste::generate(3), pool);
};

void BM_counters_engine_batch(benchmark::State& state) {
  static EngineSetup* setup = new EngineSetup;
  engine::EngineConfig cfg;
  cfg.circuit = "porep-like";
  cfg.constraints = 1024;
  cfg.partitions = 3;
  cfg.count = 4;
  cfg.concurrency = 2;
  cfg.verify = false;
  const std::int64_t start_ns = counters::monotonic_ns();
  auto sampler = start_sampler(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    trace::TimelineRecorder tl(scratch_dir() / "timeline.csv");
    engine::CpuBackend backend(1, cfg.vram_limit, cfg.device_threads);
    engine::EngineInputs in{cfg, backend, setup->pk, setup->cs, tl, nullptr, {}, nullptr};
    const auto result = engine::run_batch(in);
    tl.close();
    benchmark::DoNotOptimize(result.summary);
  }
  state.counters["proofs_per_s"] =
      benchmark::Counter(static_cast<double>(cfg.count) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate);
  stop_sampler(state, sampler, start_ns);
  label(state);
}
BENCHMARK(BM_counters_engine_batch)->DenseRange(0, 2)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_counters_msm_pool(benchmark::State& state) {
  constexpr std::size_t kN = 1 << 15;
  static const auto* data = [] {
    auto* d = new std::pair<std::vector<curve::Affine<curve::G1Curve>>, std::vector<msm::Scalar>>;
    std::mt19937_64 rng(7);
    using Jac = curve::Jacobian<curve::G1Curve>;
    const Jac g = Jac::from_affine(curve::g1_generator());
    const auto step = curve::scalar_mul(g, field::Fr::random(rng)).to_affine();
    Jac p = g;
    std::vector<Jac> jac(kN);
    for (auto& q : jac) {
      q = p;
      p = p.add_mixed(step);
    }
    d->first.resize(kN);
    curve::batch_to_affine<curve::G1Curve>(jac, d->first);
    std::vector<field::Fr> k(kN);
    for (auto& x : k) x = field::Fr::random(rng);
    parallel::ThreadPool one(parallel::kOnCaller, "bench");
    d->second = msm::to_scalars(k, one);
    return d;
  }();
  parallel::ThreadPool pool(0, "bench");
  const std::int64_t start_ns = counters::monotonic_ns();
  auto sampler = start_sampler(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    auto r = msm::msm<curve::G1Curve>(data->first, data->second, pool);
    benchmark::DoNotOptimize(r);
  }
  stop_sampler(state, sampler, start_ns);
  label(state);
}
BENCHMARK(BM_counters_msm_pool)->DenseRange(0, 2)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_counters_stream_pool(benchmark::State& state) {
  constexpr std::size_t kWords = (256u << 20) / sizeof(std::uint64_t);
  static std::uint64_t* buf = [] {
    auto* p = static_cast<std::uint64_t*>(std::aligned_alloc(64, kWords * sizeof(std::uint64_t)));
    std::memset(p, 0, kWords * sizeof(std::uint64_t));
    return p;
  }();
  parallel::ThreadPool pool(0, "bench");
  const std::int64_t start_ns = counters::monotonic_ns();
  auto sampler = start_sampler(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    pool.parallel_for(kWords, 1 << 16, [&](std::size_t b, std::size_t e) {
      for (std::size_t i = b; i < e; ++i) buf[i] += 1;
    });
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * 2 *
                          static_cast<std::int64_t>(kWords * sizeof(std::uint64_t)));
  stop_sampler(state, sampler, start_ns);
  label(state);
}
BENCHMARK(BM_counters_stream_pool)->DenseRange(0, 2)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
