// Where the runs of an experiment execute: one after another in this process
// (local_executor.cpp, the default) or as a Slurm job array, one array task per run
// (slurm_executor.cpp, docs/slurm.md). One small interface, as harness/experiment/runner.hpp is for
// what makes one run: the matrix command plans, an executor runs the plan. Either way the
// experiment directory is the same (run directories, index.csv, experiment.json) and a
// later `prooflab matrix` resumes it: complete runs are kept, the rest are run again.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>

#include "harness/experiment/experiment_runner.hpp"
#include "harness/experiment/experiment_schedule.hpp"
#include "harness/experiment/runner.hpp"
#include "harness/experiment/slurm_cli.hpp"

namespace prooflab::harness {

class Executor {
 public:
  virtual ~Executor() = default;
  // Runs every planned run that is not done yet into <opts.out_root>/<experiment>/, keeps
  // index.csv and experiment.json up to date, and returns the state the runs are in.
  // opts.execute is the executor's business (callers leave it empty).
  virtual ExperimentOutcome execute(const ExperimentPlan& plan, RunnerOptions opts) = 0;
};

// The Runner every run of this experiment goes through: its [runner] command, else the engine.
std::unique_ptr<Runner> make_experiment_runner(const ExperimentSpec& spec,
                                               const std::filesystem::path& param_dir);

// Each run in turn, in this process (run_experiment).
std::unique_ptr<Executor> make_local_executor(std::filesystem::path param_dir);

struct SlurmExecutorOptions {
  SlurmSubmitOptions submit;
  bool wait = true;   // false (--no-wait): return once the array is submitted
  double poll_s = 5;  // seconds between squeue polls while waiting
  // The prooflab each array task runs: on a cluster a path every node sees. "" = this binary.
  std::filesystem::path task_binary;
  std::filesystem::path param_dir;  // the tasks' parameter cache ("" = their default)
};

// One sbatch --array per session for the runs that need running, in schedule order
// (array index i = the i-th such run), each task `prooflab slurm-task` (slurm_task.cpp);
// progress from squeue, why a task ended from sacct. State in <experiment>/slurm/.
std::unique_ptr<Executor> make_slurm_executor(SlurmExecutorOptions options);

// Whether the experiment directory holds Slurm submissions (a plain `prooflab matrix` then
// resumes with the Slurm executor).
bool has_slurm_submissions(const std::filesystem::path& exp_dir);

}  // namespace prooflab::harness
