// `prooflab batch [CONFIG.toml]`: run the engine over `count` proofs with `concurrency` in
// flight, print one line per proof in the reference's style and the Batch Summary, write the
// run directory. The config is the positional argument or --config (not both); `prooflab run
// CONFIG.toml` is the same command under its older name. Exit status non-zero when a proof
// failed or the run was interrupted.
#include <atomic>
#include <csignal>

#include "harness/batch_runner.hpp"
#include "harness/commands/commands.hpp"
#include "harness/config_file.hpp"
#include "harness/counters/cli_flags.hpp"

namespace prooflab::harness {
namespace {

std::atomic<bool> g_stop{false};
void on_signal(int) { g_stop.store(true); }

}  // namespace

void add_batch_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("batch", "Prove a batch of proofs through the engine (alias: run)");
  cmd->alias("run");
  struct Options {
    std::uint32_t count = 1, concurrency = 1;
    std::string config_file, config_arg, out = "results/runs", run_id, param_dir;
    std::vector<std::string> sets;
    std::string log_format = "prooflab";
    bool no_verify = false, force = false;
    counters::CounterFlags counters;
  };
  auto o = std::make_shared<Options>();
  auto* count_opt = cmd->add_option("--count", o->count, "proofs in the batch (c); default 1 or the config's")
                        ->check(config_key_check("count"));
  auto* conc_opt = cmd->add_option("--concurrency", o->concurrency, "proofs in flight (j); default 1 or the config's")
                       ->check(config_key_check("concurrency"));
  auto* config_pos = cmd->add_option("config", o->config_arg, "engine config (TOML, e.g. experiments/default-cpu.toml)");
  cmd->add_option("--config", o->config_file, "engine config (TOML)")->excludes(config_pos);
  cmd->add_option("--set", o->sets, "override a config key: --set lock_policy=two_lock");
  cmd->add_flag("--no-verify", o->no_verify, "do not verify the proofs");
  cmd->add_option("--out", o->out, "parent directory of the run directory")->capture_default_str();
  cmd->add_option("--run-id", o->run_id, "run id (default: time, circuit, c, j)");
  cmd->add_flag("--force", o->force, "replace an existing run directory of this run id");
  cmd->add_option("--param-dir", o->param_dir, "parameter cache directory");
  cmd->add_option("--log-format", o->log_format,
                  "prooflab: prooflab's lines on stdout; cuzk: the reference system's instead, the cuzk "
                  "daemon's log (TIMELINE, CUZK_TIMING) on stderr and cuzk-bench's lines on stdout "
                  "(docs/reference-logs.md)")
      ->check(CLI::IsMember({"prooflab", "cuzk"}))
      ->capture_default_str();
  counters::add_counter_flags(cmd, o->counters);
  cmd->callback([o, count_opt, conc_opt] {
    engine::EngineConfig cfg;
    const std::string& config_file = o->config_file.empty() ? o->config_arg : o->config_file;
    if (!config_file.empty()) apply_config_file(cfg, config_file);
    if (count_opt->count()) cfg.count = o->count;
    if (conc_opt->count()) cfg.concurrency = o->concurrency;
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
    opts.counters = o->counters.to_options();
    opts.log_format = o->log_format == "cuzk" ? LogFormat::kCuzk : LogFormat::kProoflab;
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
