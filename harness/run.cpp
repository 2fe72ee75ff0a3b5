// `prooflab run CONFIG.toml`: one run of an engine config into results/runs/<run-id>/ — what
// `prooflab batch --config CONFIG.toml` does, with the config as the argument. Exit status
// non-zero when a proof failed or the run was interrupted.
#include <atomic>
#include <csignal>

#include "harness/batch_runner.hpp"
#include "harness/commands.hpp"
#include "harness/config_file.hpp"

namespace prooflab::harness {

namespace {

std::atomic<bool> g_stop{false};
void on_signal(int) { g_stop.store(true); }

}  // namespace

void add_run_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("run", "One run of an engine config (as batch --config)");
  struct Options {
    std::string config_file, out = "results/runs", run_id, param_dir;
    std::vector<std::string> sets;
    bool no_verify = false, force = false;
  };
  auto o = std::make_shared<Options>();
  cmd->add_option("config", o->config_file,
                  "engine config (TOML, e.g. experiments/default-cpu.toml)")
      ->required();
  cmd->add_option("--set", o->sets, "override a config key: --set lock_policy=two_lock");
  cmd->add_flag("--no-verify", o->no_verify, "do not verify the proofs");
  cmd->add_option("--out", o->out, "parent directory of the run directory")->capture_default_str();
  cmd->add_option("--run-id", o->run_id, "run id (default: time, circuit, c, j)");
  cmd->add_flag("--force", o->force, "replace an existing run directory of this run id");
  cmd->add_option("--param-dir", o->param_dir, "parameter cache directory");
  cmd->callback([o] {
    engine::EngineConfig cfg;
    apply_config_file(cfg, o->config_file);
    apply_overrides(cfg, o->sets);
    if (o->no_verify) cfg.verify = false;
    g_stop = false;
    std::signal(SIGINT, on_signal);
    std::signal(SIGTERM, on_signal);
    // A closed stdout (`prooflab batch ... | head`) stops the run like Ctrl-C, so run.json
    // ends "interrupted" instead of the process dying mid-run.
    std::signal(SIGPIPE, on_signal);
    BatchRunOptions opts;
    opts.out_parent = o->out;
    opts.run_id = o->run_id;
    opts.replace_existing = o->force;
    opts.param_dir = o->param_dir;
    opts.stop = &g_stop;
    const auto outcome = run_batch_to_directory(cfg, opts);
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    std::signal(SIGPIPE, SIG_IGN);  // what is left in stdout's buffer fails quietly at exit
    if (outcome.status == "interrupted")
      throw std::runtime_error("interrupted: the run directory is marked interrupted");
    if (outcome.status == "failed") throw std::runtime_error(outcome.error);
  });
}

}  // namespace prooflab::harness
