// `prooflab matrix EXP.toml`: run an experiment file (docs/experiments.md): its cells x
// variants x repetitions, interleaved, into <out>/<experiment>/, resumable.
#include "harness/commands.hpp"
#include "harness/experiment_cli.hpp"
#include "harness/experiment_spec.hpp"

namespace prooflab::harness {

void add_matrix_command(CLI::App& app) {
  auto* cmd =
      app.add_subcommand("matrix", "Run an experiment file: cells x variants x repetitions");
  struct Options {
    std::string file;
    std::uint32_t reps = 0;
    ExperimentCommandOptions common;
  };
  auto o = std::make_shared<Options>();
  cmd->add_option("file", o->file, "experiment file (experiments/*.toml)")->required();
  cmd->add_option("--reps", o->reps, "repetitions per arm (overrides the file's)")
      ->check(CLI::Range(1u, kMaxReps));
  add_experiment_options(cmd, o->common);
  cmd->callback([o] {
    auto spec = parse_experiment_file(o->file);
    if (o->reps > 0) spec.reps = o->reps;
    execute_experiment_command(make_plan(std::move(spec)), o->common);
  });
}

}  // namespace prooflab::harness
