// What `prooflab matrix` and `prooflab sweep` share once they have a plan: the common options,
// the dry run, SIGINT/SIGTERM handling, handing the plan to an executor (harness/experiment/executor.hpp),
// and the closing lines (where index.csv is, the report command).
#pragma once

#include <CLI/CLI.hpp>
#include <filesystem>
#include <string>

#include "harness/experiment/executor.hpp"
#include "harness/experiment/experiment_schedule.hpp"

namespace prooflab::harness {

struct ExperimentCommandOptions {
  std::string out = "results";
  std::string param_dir;
  bool dry_run = false;
  bool keep_failed = false;
  bool force = false;  // rebuild an unreadable experiment.json
};

// --out, --param-dir, --dry-run, --keep-failed, --force.
void add_experiment_options(CLI::App* cmd, ExperimentCommandOptions& o);

// Dry run: prints the plan. Otherwise has `executor` run it (first Ctrl-C: stop after the
// current run; second: interrupt it) and prints where the index is; throws, for a non-zero
// exit status, when not every run completed (runs left queued in a batch scheduler are not
// a failure: a later session collects them).
void execute_experiment_command(const ExperimentPlan& plan, const ExperimentCommandOptions& o,
                                Executor& executor);

}  // namespace prooflab::harness
