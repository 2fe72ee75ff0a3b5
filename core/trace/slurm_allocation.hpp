// Where in a Slurm cluster this process runs, for run.json's `slurm` block: the job, the
// array job and task (when it is an array task) and the node, read from the variables
// slurmd sets for a batch step (SLURM_JOB_ID, SLURM_ARRAY_JOB_ID, SLURM_ARRAY_TASK_ID,
// SLURMD_NODENAME). The node matters to the analysis: runs on two hosts differ by more
// than the intervention, so a comparison that mixes nodes is flagged (docs/slurm.md).
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

namespace prooflab::trace {

// Looks up an environment variable; nullptr when unset.
using EnvLookup = std::function<const char*(const char*)>;

// {"job_id", "array_job_id", "array_task_id", "node"} (the array keys only for an array
// task, each a string as Slurm prints it), or null outside a Slurm job (no SLURM_JOB_ID).
nlohmann::json slurm_allocation(const EnvLookup& env);
// The same from this process's environment.
nlohmann::json slurm_allocation();

}  // namespace prooflab::trace
