// `prooflab matrix EXP.toml`: run an experiment file (docs/experiments.md): its cells x
// variants x repetitions, interleaved, into <out>/<experiment>/, resumable; here, or as a
// Slurm job array (--executor slurm, docs/slurm.md).
#include "harness/commands/commands.hpp"
#include "harness/experiment/executor.hpp"
#include "harness/experiment/experiment_cli.hpp"
#include "harness/experiment/experiment_spec.hpp"

namespace prooflab::harness {

void add_matrix_command(CLI::App& app) {
  auto* cmd =
      app.add_subcommand("matrix", "Run an experiment file: cells x variants x repetitions");
  struct Options {
    std::string file;
    std::uint32_t reps = 0;
    ExperimentCommandOptions common;
    std::string executor;  // "" = slurm where the experiment has Slurm submissions, else local
    SlurmExecutorOptions slurm;
    bool no_wait = false;
  };
  auto o = std::make_shared<Options>();
  cmd->add_option("file", o->file, "experiment file (experiments/*.toml)")->required();
  cmd->add_option("--reps", o->reps, "repetitions per arm (overrides the file's)")
      ->check(CLI::Range(1u, kMaxReps));
  add_experiment_options(cmd, o->common);
  cmd->add_option("--executor", o->executor,
                  "local: one run after another here (the default); slurm: one job array, a task "
                  "per run (docs/slurm.md). An experiment submitted to Slurm resumes there")
      ->check(CLI::IsMember({"local", "slurm"}));
  const char* slurm = "Slurm (--executor slurm)";
  auto slurm_only = std::make_shared<std::vector<CLI::Option*>>();
  slurm_only->push_back(
      cmd->add_option("--partition", o->slurm.submit.partition, "Slurm partition")->group(slurm));
  slurm_only->push_back(
      cmd->add_option("--gres", o->slurm.submit.gres, "generic resources per task, e.g. gpu:1")
          ->group(slurm));
  slurm_only->push_back(
      cmd->add_option("--time", o->slurm.submit.time, "time limit per task, e.g. 30:00")
          ->group(slurm));
  slurm_only->push_back(cmd->add_option("--array-parallel", o->slurm.submit.array_parallel,
                                        "at most N tasks at once (sbatch --array=...%N)")
                            ->check(CLI::Range(1u, 1000000u))
                            ->group(slurm));
  slurm_only->push_back(
      cmd->add_option("--pin-node", o->slurm.submit.pin_node,
                      "run every task on this node, so that no comparison mixes hosts (--nodelist)")
          ->group(slurm));
  slurm_only->push_back(
      cmd->add_option("--sbatch-arg", o->slurm.submit.extra,
                      "a further sbatch argument, e.g. --sbatch-arg=--account=perf (repeatable)")
          ->group(slurm));
  slurm_only->push_back(
      cmd->add_option("--task-binary", o->slurm.task_binary,
                      "the prooflab the tasks run, on a path every node sees (default: this one)")
          ->group(slurm));
  slurm_only->push_back(
      cmd->add_flag("--no-wait", o->no_wait,
                    "return once submitted; `prooflab matrix` again follows and resumes")
          ->group(slurm));
  slurm_only->push_back(cmd->add_option("--poll", o->slurm.poll_s, "seconds between squeue polls")
                            ->capture_default_str()
                            ->check(CLI::Range(0.1, 3600.0))
                            ->group(slurm));
  cmd->callback([o, slurm_only] {
    auto spec = parse_experiment_file(o->file);
    if (o->reps > 0) spec.reps = o->reps;
    const ExperimentPlan plan = make_plan(std::move(spec));
    const bool slurm =
        o->executor == "slurm" ||
        (o->executor.empty() && has_slurm_submissions(experiment_dir(plan, o->common.out)));
    for (const CLI::Option* opt : *slurm_only)
      if (!slurm && opt->count() > 0)
        throw CLI::ValidationError(opt->get_name(),
                                   "only with the Slurm executor (--executor slurm)");
    std::unique_ptr<Executor> executor;
    if (slurm) {
      o->slurm.wait = !o->no_wait;
      o->slurm.param_dir = o->common.param_dir;
      executor = make_slurm_executor(o->slurm);
    } else {
      executor = make_local_executor(o->common.param_dir);
    }
    execute_experiment_command(plan, o->common, *executor);
  });
}

}  // namespace prooflab::harness
