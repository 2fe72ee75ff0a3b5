// One run of an experiment's schedule (experiment_schedule.hpp orders them), and its JSON
// form: what a Slurm array task reads to find the run it is (harness/commands/slurm_task.cpp), and
// what the submitting side wrote down so that it can tell the task's run from another.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace prooflab::harness {

struct PlannedRun {
  std::size_t order = 0;  // position in the whole schedule, warm-ups included
  std::size_t arm = 0;    // index into ExperimentMatrix::arms
  std::uint32_t rep = 0;  // repetition (warm-up number for warm-ups), from 0
  bool warmup = false;
  std::string run_dir;  // relative to the experiment directory: <cell>/<variant>/<rep>
                        // (warm-ups: <cell>/<variant>/warmup-<k>)

  bool operator==(const PlannedRun&) const = default;
};

// {"order", "arm", "rep", "warmup", "run_dir"}.
nlohmann::json planned_run_json(const PlannedRun& run);

// The inverse. Throws std::invalid_argument naming `where` (e.g. "tasks-1.json: runs[3]")
// and the key for a missing key or a value of the wrong type or range.
PlannedRun planned_run_from_json(const nlohmann::json& j, const std::string& where);

}  // namespace prooflab::harness
