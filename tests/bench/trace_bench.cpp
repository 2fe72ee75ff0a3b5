// The cost of recording (issue 4: < 1 % of throughput). BM_timeline_record is the hot-path
// cost of one event; BM_engine_batch runs the same small batch with recording on and off
// in the same process, interleaved by Google Benchmark's repetitions.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>

#include "core/circuits/circuit.hpp"
#include "core/engine/cpu_backend.hpp"
#include "core/engine/engine.hpp"
#include "core/groth16/setup.hpp"

namespace {

using namespace prooflab;
namespace fs = std::filesystem;

fs::path scratch(const char* name) {
  return fs::temp_directory_path() / (std::string("prooflab_bench_") + name + "_" + std::to_string(::getpid()));
}

void BM_timeline_record(benchmark::State& state) {
  const bool enabled = state.range(0) != 0;
  const auto path = scratch("timeline.csv");
  trace::TimelineRecorder tl(enabled ? path : fs::path());
  int i = 0;
  for (auto _ : state) tl.record(trace::Event::kNttH, i++ & 1023, 3, 1, 0, "dur_us=12345");
  tl.close();
  fs::remove(path);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_timeline_record)->Arg(1)->Arg(0);

void BM_engine_batch(benchmark::State& state) {
  static parallel::ThreadPool pool(0);
  static const auto circuit = circuits::make_circuit("porep-like", 2048, 0);
  static const auto cs = circuits::synthesize_shape(*circuit);
  static const auto pk = groth16::generate_parameters(cs, groth16::ToxicWaste::generate(1), pool);
  engine::EngineConfig cfg;
  cfg.constraints = 2048;
  cfg.partitions = 4;
  cfg.count = 4;
  cfg.concurrency = 2;
  cfg.verify = false;
  cfg.record = state.range(0) != 0;
  std::uint64_t events = 0;
  for (auto _ : state) {
    const auto dir = scratch("run");
    fs::remove_all(dir);
    trace::RunDirectory run_dir(dir, {{"run_id", "bench"}});
    trace::TimelineRecorder tl(cfg.record ? run_dir.timeline_path() : fs::path());
    engine::CpuBackend backend(1, 0, 0);
    engine::EngineInputs in{cfg, backend, pk, cs, tl, &run_dir, {}, nullptr};
    const auto r = engine::run_batch(in);
    tl.close();
    events += tl.events_recorded();
    fs::remove_all(dir);
  }
  state.counters["proofs_per_s"] = benchmark::Counter(cfg.count * state.iterations(), benchmark::Counter::kIsRate);
  state.counters["events_per_batch"] = static_cast<double>(events) / state.iterations();
}
BENCHMARK(BM_engine_batch)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond)->MinTime(2.0)->UseRealTime();

}  // namespace
