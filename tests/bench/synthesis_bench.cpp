// Synthesis benchmarks on the porep-like circuit (docs/circuits.md): the per-partition work
// of the prover's synthesize stage, one thread, the calling thread's CPU clock.
//
//   BM_porep_witness/<log2 n>     witness generation (kWitness mode)
//   BM_porep_products/<log2 n>    A·w, B·w, C·w into reused buffers of the domain's length
//                                 (evaluate_all_into: no page faults of fresh vectors)
//   BM_porep_synthesize/<log2 n>  both as the prover runs them: a fresh witness, then
//                                 groth16::synthesize (its domain size, evaluate_all into
//                                 fresh vectors)
//   BM_porep_prep_msm/<log2 n>    prep_msm on that witness (the engine runs it, like the
//                                 witness, on the synthesis lane's thread): a proving key of
//                                 the circuit's query sizes whose bases are all the generator
//                                 (the classification and the tail gathers do not read them)
//
// Counters: constraints/s (items_per_second) and ns_per_constraint; the shape is built once
// per size outside the timed loop, as the engine does. Uses only the public r1cs / circuits
// API, so the same file builds against an older commit's library for A/B runs
// (results/scripts/synthesis_ab.sh).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include <time.h>

#include "core/circuits/circuit.hpp"
#include "core/curve/g1.hpp"
#include "core/curve/g2.hpp"
#include "core/groth16/prover.hpp"
#include "core/parallel/thread_pool.hpp"
#include "core/r1cs/evaluate.hpp"

namespace {

using namespace prooflab;

double thread_cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

struct Subject {
  std::unique_ptr<circuits::Circuit> circuit;
  r1cs::R1cs shape;
  std::size_t domain = 0;  // a power of two ≥ constraints + inputs (the prover's length)
};

const Subject& subject(unsigned log2_n) {
  static std::map<unsigned, Subject> cache;
  auto [it, inserted] = cache.try_emplace(log2_n);
  if (inserted) {
    Subject& s = it->second;
    s.circuit = circuits::make_circuit("porep-like", std::uint64_t{1} << log2_n, 1);
    s.shape = circuits::synthesize_shape(*s.circuit);
    s.domain = 1;
    while (s.domain < s.shape.num_constraints + s.shape.num_inputs) s.domain <<= 1;
  }
  return it->second;
}

// seconds: the sum of the iterations' manual times.
void report(benchmark::State& state, const Subject& s, double seconds) {
  const double n = static_cast<double>(s.shape.num_constraints);
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(n));
  state.counters["ns_per_constraint"] =
      1e9 * seconds / (static_cast<double>(state.iterations()) * n);
}

void BM_porep_witness(benchmark::State& state) {
  const Subject& s = subject(static_cast<unsigned>(state.range(0)));
  double seconds = 0;
  for (auto _ : state) {
    const double t0 = thread_cpu_seconds();
    r1cs::Witness w = circuits::synthesize_witness(*s.circuit);
    benchmark::DoNotOptimize(w.aux.data());
    const double dt = thread_cpu_seconds() - t0;
    state.SetIterationTime(dt);
    seconds += dt;
  }
  report(state, s, seconds);
}

void BM_porep_products(benchmark::State& state) {
  const Subject& s = subject(static_cast<unsigned>(state.range(0)));
  parallel::ThreadPool pool(parallel::kOnCaller, "synthesis-bench");
  const r1cs::Witness w = circuits::synthesize_witness(*s.circuit);
  std::vector<field::Fr> a(s.domain), b(s.domain), c(s.domain);
  double seconds = 0;
  for (auto _ : state) {
    const double t0 = thread_cpu_seconds();
    r1cs::evaluate_all_into(s.shape, w, a, b, c, pool);
    benchmark::DoNotOptimize(a.data());
    const double dt = thread_cpu_seconds() - t0;
    state.SetIterationTime(dt);
    seconds += dt;
  }
  report(state, s, seconds);
}

void BM_porep_synthesize(benchmark::State& state) {
  const Subject& s = subject(static_cast<unsigned>(state.range(0)));
  parallel::ThreadPool pool(parallel::kOnCaller, "synthesis-bench");
  double seconds = 0;
  for (auto _ : state) {
    const double t0 = thread_cpu_seconds();
    groth16::SynthesizedPartition part =
        groth16::synthesize(s.shape, circuits::synthesize_witness(*s.circuit), pool);
    benchmark::DoNotOptimize(part.a.data());
    const double dt = thread_cpu_seconds() - t0;
    state.SetIterationTime(dt);
    seconds += dt;
  }
  report(state, s, seconds);
}

void BM_porep_prep_msm(benchmark::State& state) {
  const Subject& s = subject(static_cast<unsigned>(state.range(0)));
  const r1cs::Witness w = circuits::synthesize_witness(*s.circuit);
  groth16::ProvingKey pk;
  const std::size_t dense_b = s.shape.b_input_density.count() + s.shape.b_aux_density.count();
  pk.l.assign(s.shape.num_aux, curve::g1_generator());
  pk.a.assign(s.shape.num_inputs + s.shape.a_aux_density.count(), curve::g1_generator());
  pk.b_g1.assign(dense_b, curve::g1_generator());
  pk.b_g2.assign(dense_b, curve::g2_generator());
  double seconds = 0;
  for (auto _ : state) {
    const double t0 = thread_cpu_seconds();
    groth16::MsmPlan plan = groth16::prep_msm(pk, s.shape, w);
    benchmark::DoNotOptimize(plan.l.ones.data());
    const double dt = thread_cpu_seconds() - t0;
    state.SetIterationTime(dt);
    seconds += dt;
  }
  report(state, s, seconds);
}

}  // namespace

BENCHMARK(BM_porep_witness)->DenseRange(16, 22, 2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_porep_products)->DenseRange(16, 22, 2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_porep_synthesize)
    ->DenseRange(16, 22, 2)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_porep_prep_msm)->DenseRange(16, 22, 2)->UseManualTime()->Unit(benchmark::kMillisecond);
