#include "harness/experiment/experiment_schedule.hpp"

#include <numeric>
#include <random>

namespace prooflab::harness {

namespace {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Uniform in [0, n) without modulo bias.
std::uint64_t bounded(std::mt19937_64& rng, std::uint64_t n) {
  const std::uint64_t limit = ~0ull - (~0ull % n);
  std::uint64_t x;
  do {
    x = rng();
  } while (x >= limit);
  return x % n;
}

}  // namespace

std::vector<std::size_t> round_permutation(std::size_t n, std::uint64_t seed, std::uint32_t round,
                                           bool shuffle) {
  std::vector<std::size_t> p(n);
  std::iota(p.begin(), p.end(), std::size_t{0});
  if (!shuffle || n < 2) return p;
  std::mt19937_64 rng(splitmix64(splitmix64(seed) ^ round));
  for (std::size_t i = n - 1; i > 0; --i) std::swap(p[i], p[bounded(rng, i + 1)]);
  return p;
}

std::vector<PlannedRun> schedule_runs(const ExperimentSpec& spec, const ExperimentMatrix& matrix) {
  std::vector<PlannedRun> runs;
  auto dir = [&](std::size_t arm, const std::string& leaf) {
    const Arm& a = matrix.arms[arm];
    return matrix.cells[a.cell].id + "/" + spec.variants[a.variant].name + "/" + leaf;
  };
  // Warm-ups: every cell's first arm (arms are cell-major, so the first arm of each cell).
  std::vector<std::size_t> first_arm;
  for (std::size_t i = 0; i < matrix.arms.size(); ++i)
    if (i == 0 || matrix.arms[i].cell != matrix.arms[i - 1].cell) first_arm.push_back(i);
  for (std::uint32_t w = 0; w < spec.warmup; ++w)
    for (const std::size_t arm : first_arm)
      runs.push_back({runs.size(), arm, w, true, dir(arm, "warmup-" + std::to_string(w))});
  for (std::uint32_t r = 0; r < spec.reps; ++r)
    for (const std::size_t arm : round_permutation(matrix.arms.size(), spec.seed, r, spec.shuffle))
      runs.push_back({runs.size(), arm, r, false, dir(arm, std::to_string(r))});
  return runs;
}

ExperimentPlan make_plan(ExperimentSpec spec) {
  ExperimentPlan plan{std::move(spec), {}, {}};
  plan.matrix = expand_matrix(plan.spec);
  plan.runs = schedule_runs(plan.spec, plan.matrix);
  return plan;
}

}  // namespace prooflab::harness
