// b_g2_msm's share of one partition's host work (results/2026-12-02-g2-msm-gpu-prediction.md):
// the porep-like circuit's real B-query classification at 2^K constraints (zeros, ones, tail),
// the CPU-seconds of witness + A·w, B·w, C·w + prep_msm, and of b_g2_msm's two parts (batch
// addition, tail MSM) on random G2 bases of the key's size, twice. Not part of the build:
//   clang++ -I. -O3 -DNDEBUG -mbmi2 -madx -std=c++20 results/scripts/b_g2_msm_cpu_share.cpp \
//     build/core/libprooflab_core.a -lgmp -lpthread -o /tmp/b_g2_share && /tmp/b_g2_share 22
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "core/circuits/circuit.hpp"
#include "core/curve/g2.hpp"
#include "core/curve/random_points.hpp"
#include "core/groth16/prover.hpp"
#include "core/msm/msm.hpp"
#include "core/parallel/thread_pool.hpp"

using namespace prooflab;

namespace {
double cpu_s(std::clock_t since) { return double(std::clock() - since) / CLOCKS_PER_SEC; }
double ms(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s LOG2_CONSTRAINTS\n", argv[0]);
    return 2;
  }
  const std::size_t k = std::strtoul(argv[1], nullptr, 10);
  parallel::ThreadPool pool(0, "b-g2-share");
  const auto circuit = circuits::make_circuit("porep-like", std::size_t{1} << k, 1);
  const auto cs = circuits::synthesize_shape(*circuit, {.keep_annotations = false});
  groth16::ProvingKey pk;  // only the sizes matter to prep_msm, and the G2 query's points
  pk.l.resize(cs.num_aux);
  pk.a.resize(cs.num_inputs + cs.a_aux_density.count());
  pk.b_g1.resize(cs.b_input_density.count() + cs.b_aux_density.count());
  pk.b_g2.resize(pk.b_g1.size());
  curve::fill_random_points<curve::G2Curve>(pk.b_g2, curve::g2_generator(), 5, pool);

  const std::clock_t c0 = std::clock();
  const auto part = groth16::synthesize(cs, circuits::synthesize_witness(*circuit), pool);
  const auto plan = groth16::prep_msm(pk, cs, part.witness);
  std::printf("2^%zu: witness + A,B,C·w + prep_msm %.2f CPU-s\n", k, cpu_s(c0));
  const auto& q = plan.b_g2;
  std::printf("B query %zu of %zu variables: zeros %zu, ones %zu, tail %zu (%.2f %%)\n",
              pk.b_g2.size(), cs.num_inputs + cs.num_aux, q.zeros, q.num_ones,
              q.tail_scalars.size(), 100.0 * q.tail_scalars.size() / pk.b_g2.size());
  for (int rep = 0; rep < 2; ++rep) {
    const std::clock_t c1 = std::clock();
    const auto t0 = std::chrono::steady_clock::now();
    const auto ones = msm::batch_add<curve::G2Curve>(pk.b_g2, q.ones, pool);
    const auto t1 = std::chrono::steady_clock::now();
    const auto tail = msm::msm<curve::G2Curve>(q.tail_bases, q.tail_scalars, pool);
    const auto t2 = std::chrono::steady_clock::now();
    std::printf("b_g2_msm on %u threads: batch_add %.1f ms, tail MSM %.1f ms, %.2f CPU-s%s\n",
                pool.size(), ms(t0, t1), ms(t1, t2), cpu_s(c1),
                ones.add(tail).is_infinity() ? " (infinity?)" : "");
  }
}
