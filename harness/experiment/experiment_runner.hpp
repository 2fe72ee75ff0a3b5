// Runs an experiment plan in this process, one run after another (the local executor,
// harness/experiment/local_executor.cpp; the Slurm executor shares the resume rules below): every
// planned run into <out>/<experiment>/<run_dir> through `execute` (prooflab's is a Runner,
// harness/experiment/runner.hpp: the engine or an external command; tests pass a fake), index.csv and
// experiment.json rewritten after each run, progress shown as it goes.
//
// Resumable: a run whose run.json says "complete" (with the planned config) is skipped; one
// that is missing, "running" (killed), "interrupted" or "failed" is deleted and run again.
// A complete run of a different config means the experiment file changed: that is an error,
// before anything runs, rather than a silent mix of two experiments in one index.
//
// Stopping: when stop_after_run is set (first SIGINT) no further run starts; when stop_now is
// set (second SIGINT) the executor is asked to end the current run, which is then recorded
// as interrupted. Either way nothing is marked complete that did not complete.
#pragma once

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/engine/config.hpp"
#include "harness/experiment/experiment_index.hpp"
#include "harness/experiment/experiment_resume.hpp"
#include "harness/experiment/experiment_schedule.hpp"
#include "harness/experiment/runner.hpp"

namespace prooflab::harness {

using RunExecutor = std::function<RunResult(const RunRequest&)>;

struct RunnerOptions {
  std::filesystem::path out_root = "results";
  RunExecutor execute;
  const std::atomic<bool>* stop_after_run = nullptr;
  const std::atomic<bool>* stop_now = nullptr;
  nlohmann::json session = nlohmann::json::object();  // command, git_commit, git_dirty
  bool keep_failed = false;  // on resume, treat failed runs as done instead of redoing them
  // An unreadable experiment.json is an error unless set (--force): then it is rebuilt
  // from the run directories and its session history is lost.
  bool rebuild_record = false;
  bool tty = false;          // progress as one redrawn line
  std::FILE* progress = stdout;
};

struct ExperimentOutcome {
  std::filesystem::path dir, index;
  // complete | interrupted | failed (some run did not complete) | submitted (runs still
  // queued or running in a batch scheduler; a later session collects them)
  std::string status;
  // Final state of the planned runs (warm-ups included): complete + failed + interrupted +
  // pending = total. skipped: complete before this session; executed: run now; queued: of
  // the pending, those a batch scheduler still holds.
  std::size_t total = 0, complete = 0, failed = 0, interrupted = 0, pending = 0;
  std::size_t skipped = 0, executed = 0, queued = 0;
};

std::filesystem::path experiment_dir(const ExperimentPlan& plan,
                                     const std::filesystem::path& out_root);

// run.json state of every planned run (indexed by order).
std::vector<RunOnDisk> scan_runs(const ExperimentPlan& plan, const std::filesystem::path& exp_dir);
// Throws naming the first conflicting runs (complete, but made with another config).
void check_no_conflicts(const ExperimentPlan& plan, const std::filesystem::path& exp_dir,
                        const std::vector<RunOnDisk>& on_disk);
// Whether a run found on disk counts as done.
bool run_is_done(const RunOnDisk& on_disk, bool keep_failed);

// "c20_j15 I1 rep 2", "c20_j15 baseline warm-up 0".
std::string run_label(const ExperimentPlan& plan, const PlannedRun& run);

// Counts the record's runs into out's complete / failed / interrupted / pending.
void tally_runs(const ExperimentRecord& record, ExperimentOutcome& out);

ExperimentOutcome run_experiment(const ExperimentPlan& plan, const RunnerOptions& opts);

}  // namespace prooflab::harness
