// The order of an experiment's runs. Warm-up runs come first (each cell's first arm, usually
// its baseline); then round r runs repetition r of every arm once, so the arms of a cell
// alternate (A B | B A | A B ...) and slow drift of the machine (thermal state, page cache,
// other tenants) spreads over all arms instead of passing for an effect. Within a round the
// order is shuffled with a generator seeded by (seed, r) alone: the order is reproducible
// from the recorded seed, and adding repetitions later does not reorder earlier rounds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "harness/experiment/experiment_matrix.hpp"
#include "harness/experiment/experiment_spec.hpp"
#include "harness/experiment/planned_run.hpp"

namespace prooflab::harness {

struct ExperimentPlan {
  ExperimentSpec spec;
  ExperimentMatrix matrix;
  std::vector<PlannedRun> runs;

  const Cell& cell_of(const PlannedRun& r) const { return matrix.cells[matrix.arms[r.arm].cell]; }
  const Variant& variant_of(const PlannedRun& r) const {
    return spec.variants[matrix.arms[r.arm].variant];
  }
  const engine::EngineConfig& config_of(const PlannedRun& r) const {
    return matrix.arms[r.arm].config;
  }
  const Arm& arm_of(const PlannedRun& r) const { return matrix.arms[r.arm]; }
};

// expand_matrix + schedule_runs.
ExperimentPlan make_plan(ExperimentSpec spec);

std::vector<PlannedRun> schedule_runs(const ExperimentSpec& spec, const ExperimentMatrix& matrix);

// A permutation of 0..n-1 for round `round` (identity when shuffle is off). Fisher-Yates
// over mt19937_64 with an explicit unbiased bounded draw: std::shuffle and the standard
// distributions are implementation-defined, and the order must not change with the library.
std::vector<std::size_t> round_permutation(std::size_t n, std::uint64_t seed, std::uint32_t round,
                                           bool shuffle);

}  // namespace prooflab::harness
