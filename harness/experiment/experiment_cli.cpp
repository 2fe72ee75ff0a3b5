#include "harness/experiment/experiment_cli.hpp"

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <cstring>

#include "harness/backend_factory.hpp"
#include "harness/experiment/experiment_printer.hpp"
#include "harness/experiment/experiment_runner.hpp"
#include "harness/provenance.hpp"

namespace prooflab::harness {

namespace {

std::atomic<bool> g_stop_after_run{false};
std::atomic<bool> g_stop_now{false};

void say(const char* text) {
  // write(2) is async-signal-safe; stdio is not.
  const ssize_t n = write(STDERR_FILENO, text, std::strlen(text));
  (void)n;
}

void on_sigint(int) {
  if (!g_stop_after_run.exchange(true)) {
    say("\nprooflab: stopping after the current run (Ctrl-C again to interrupt it)\n");
  } else {
    g_stop_now.store(true);
    say("\nprooflab: interrupting the current run (it will be recorded as interrupted)\n");
    std::signal(SIGINT, SIG_DFL);  // a third Ctrl-C kills; the run then reads as interrupted
  }
}

void on_sigterm(int) {
  g_stop_after_run.store(true);
  g_stop_now.store(true);
}

struct SignalScope {
  SignalScope() {
    g_stop_after_run = false;
    g_stop_now = false;
    std::signal(SIGINT, on_sigint);
    std::signal(SIGTERM, on_sigterm);
    std::signal(SIGPIPE, on_sigterm);  // stdout closed (`| head`): stop, recorded as interrupted
  }
  ~SignalScope() {
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    std::signal(SIGPIPE, SIG_IGN);  // what is left in stdout's buffer fails quietly at exit
  }
};

}  // namespace

void add_experiment_options(CLI::App* cmd, ExperimentCommandOptions& o) {
  cmd->add_option("--out", o.out, "parent of the experiment directory")->capture_default_str();
  cmd->add_option("--param-dir", o.param_dir, "parameter cache directory");
  cmd->add_flag("--dry-run", o.dry_run,
                "print the plan (cells, variants, run order, what is done) and exit");
  cmd->add_flag(
      "--keep-failed", o.keep_failed,
      "on resume, keep failed runs instead of redoing them (e.g. runs that fail by design)");
  cmd->add_flag("--force", o.force,
                "rebuild an unreadable experiment.json from the run directories (its session "
                "history is lost)");
}

void execute_experiment_command(const ExperimentPlan& plan, const ExperimentCommandOptions& o,
                                Executor& executor) {
  const auto dir = experiment_dir(plan, o.out);
  if (o.dry_run) {
    print_plan(plan, dir, scan_runs(plan, dir), o.keep_failed, stdout);
    return;
  }
  // A CUDA cell asking for more GPUs than this host has stops the experiment here, before
  // its first run, rather than when the cell comes up hours later.
  for (const Arm& arm : plan.matrix.arms)
    if (!arm.external) check_devices_visible(arm.config);
  const char* term = std::getenv("TERM");
  const bool tty = isatty(STDERR_FILENO) && !(term && std::strcmp(term, "dumb") == 0);
  SignalScope signals;
  RunnerOptions opts;
  opts.out_root = o.out;
  opts.stop_after_run = &g_stop_after_run;
  opts.stop_now = &g_stop_now;
  opts.session = provenance();
  opts.keep_failed = o.keep_failed;
  opts.rebuild_record = o.force;
  opts.tty = tty;
  opts.progress = tty ? stderr : stdout;
  std::printf("experiment %s: %zu runs into %s\n", plan.spec.name.c_str(), plan.runs.size(),
              dir.c_str());
  std::fflush(stdout);
  const auto outcome = executor.execute(plan, opts);
  print_outcome(plan, outcome, stdout);
  if (outcome.status == "submitted") return;
  if (outcome.status == "interrupted")
    throw std::runtime_error(
        "interrupted: " + std::to_string(outcome.pending + outcome.interrupted) +
        " runs left to do");
  if (outcome.status != "complete")
    throw std::runtime_error(
        std::to_string(outcome.failed + outcome.interrupted + outcome.pending) + " of " +
        std::to_string(outcome.total) + " runs did not complete");
}

}  // namespace prooflab::harness
