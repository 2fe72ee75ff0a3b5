// The Runner of an external prover (docs/external-runner.md). One run:
//   1. run.json (status running) with the exact commands, environment and overlay; the
//      overlaid config copy; the tool versions;
//   2. setup (e.g. the daemon), then the readiness check (a command that must exit 0, or a
//      line to wait for in a log), within ready_timeout_s;
//   3. the run command, within run_timeout_s, while the counters are sampled and the named
//      logs followed; every process writes its stdout/stderr straight into the run directory;
//   4. teardown, then the end of the setup's whole process group;
//   5. the import of the captured output (harness/run_import.hpp) into timeline.csv,
//      stages.csv and summary.json; run.json finished with the exit codes and, for a run
//      that failed, the reason and the tail of the output.
// A failure of any step fails this run only (status and reason); stop (a second Ctrl-C,
// SIGTERM) ends the current step, tears down and records the run as interrupted.
#include <toml++/toml.h>

#include <chrono>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>

#include "core/trace/run_directory.hpp"
#include "core/trace/timeline.hpp"
#include "harness/experiment/command_invocation.hpp"
#include "harness/counters/sampler.hpp"
#include "harness/experiment/log_follower.hpp"
#include "harness/process.hpp"
#include "harness/provenance.hpp"
#include "harness/run_import.hpp"
#include "harness/experiment/runner.hpp"
#include "harness/experiment/toml_overlay.hpp"

namespace prooflab::harness {

namespace {

namespace fs = std::filesystem;
using Seconds = std::chrono::duration<double>;

constexpr std::size_t kTailLines = 20;
constexpr double kVersionTimeoutS = 10;

// The file's text from byte `from` on ("" when it is absent or shorter).
std::string read_file(const fs::path& p, std::uintmax_t from = 0) {
  std::ifstream in(p, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(from));
  std::stringstream s;
  if (in) s << in.rdbuf();
  return s.str();
}

std::uintmax_t size_or_zero(const fs::path& p) {
  std::error_code ec;
  const auto n = fs::file_size(p, ec);
  return ec ? 0 : n;
}

// Why a step ended the run early.
struct Stop {
  std::string status;  // failed | interrupted
  std::string reason;
  std::string tail;  // the output that tells why
};

class ExternalRun {
 public:
  ExternalRun(const CommandSpec& spec, const counters::CounterOptions& counters,
              const RunRequest& rq)
      : spec_(spec),
        counters_(counters),
        rq_(rq),
        dir_(fs::absolute(rq.out_parent / rq.run_id)),
        inv_(make_invocation(
            spec, *rq.arm,
            RunContext{dir_, rq.run_id, rq.experiment, rq.cell, rq.variant, rq.rep})) {}

  RunResult execute() {
    nlohmann::json meta = provenance();
    meta["run_id"] = rq_.run_id;
    meta["config"] = rq_.arm->recorded_config();
    meta["runner"] = inv_.to_json();
    meta["runner"]["env_inherited"] = true;  // env lists what the runner adds to prooflab's
    meta["counters"] = nlohmann::json::object();
    meta["counter_sampling"] = counters_.to_json();
    trace::RunDirectory run_dir(dir_, meta);
    std::optional<Stop> stop = prepare(run_dir);
    std::unique_ptr<Process> setup;
    if (!stop && !inv_.setup.empty()) stop = start_setup(setup);
    if (!stop) stop = measure(run_dir, setup.get());
    tear_down(setup);
    nlohmann::json summary;
    if (!stop) stop = import(summary);
    run_dir.set_metadata("exits", exits_);
    RunResult result{"complete", summary, ""};
    if (stop) {
      result = RunResult{stop->status, nlohmann::json(), stop->reason};
      run_dir.set_metadata("failure", {{"reason", stop->reason}, {"output_tail", stop->tail}});
    }
    run_dir.finish(result.status, nullptr);  // summary.json is the importer's
    return result;
  }

 private:
  fs::path out(const std::string& name) const { return dir_ / name; }

  std::string tail_of(const std::string& step) const {
    std::string text;
    for (const char* stream : {"stderr", "stdout"}) {
      const auto t = file_tail(out(step + "." + stream), kTailLines);
      if (!t.empty()) text += "--- " + step + "." + stream + " ---\n" + t;
    }
    return text;
  }

  void record_exit(const std::string& step, const Process& p) {
    exits_[step] = {{"status", p.describe()}, {"exit_code", p.exit_code()}};
  }

  std::unique_ptr<Process> spawn(const std::string& step, const std::string& command) {
    return std::make_unique<Process>(
        ProcessSpec{command, inv_.env, out(step + ".stdout"), out(step + ".stderr")});
  }

  // The overlaid config copy and the tool versions.
  std::optional<Stop> prepare(trace::RunDirectory& run_dir) {
    if (!inv_.config_base.empty()) {
      try {
        std::ofstream(inv_.config_copy) << overlay_toml(inv_.config_base, inv_.overlay);
      } catch (const std::exception& e) {
        return Stop{"failed", std::string("config overlay: ") + e.what(), ""};
      }
    }
    nlohmann::json versions = nlohmann::json::array();
    for (std::size_t i = 0; i < inv_.versions.size(); ++i) {
      const std::string step = "version-" + std::to_string(i);
      Process p(ProcessSpec{inv_.versions[i], inv_.env, out(step + ".out"), out(step + ".out")});
      if (p.wait(Seconds(kVersionTimeoutS)) != WaitEnd::exited) p.end_group(Seconds(1));
      std::string first;
      std::stringstream lines(read_file(out(step + ".out")));
      while (first.empty() && std::getline(lines, first)) {
      }
      versions.push_back(
          {{"command", inv_.versions[i]}, {"output", first}, {"status", p.describe()}});
      fs::remove(out(step + ".out"));
    }
    run_dir.set_metadata("tool_versions", versions);
    return std::nullopt;
  }

  std::optional<Stop> start_setup(std::unique_ptr<Process>& setup) {
    // A log that outlives the runs (a daemon's own) holds earlier runs' lines: readiness is
    // what this setup writes.
    if (!inv_.ready_log.empty()) ready_log_from_ = size_or_zero(inv_.ready_log);
    epoch_ns_ = trace::monotonic_ns();  // the daemon's TIMELINE counts from about here
    try {
      setup = spawn("setup", inv_.setup);
    } catch (const std::exception& e) {
      return Stop{"failed", std::string("setup: ") + e.what(), ""};
    }
    return wait_ready(*setup);
  }

  std::optional<Stop> wait_ready(Process& setup) {
    if (inv_.ready_command.empty() && inv_.ready_log.empty()) return std::nullopt;
    const auto t0 = std::chrono::steady_clock::now();
    const Seconds limit(spec_.ready_timeout_s);
    while (true) {
      if (rq_.stop && rq_.stop->load())
        return Stop{"interrupted", "stopped while waiting for the setup to be ready", ""};
      if (setup.poll()) {
        record_exit("setup", setup);
        return Stop{"failed", "setup exited (" + setup.describe() + ") before it was ready",
                    tail_of("setup")};
      }
      const Seconds left = limit - (std::chrono::steady_clock::now() - t0);
      if (left.count() <= 0) break;
      if (!inv_.ready_command.empty()) {
        Process probe(
            ProcessSpec{inv_.ready_command, inv_.env, out("ready.stdout"), out("ready.stderr")});
        if (probe.wait(left, rq_.stop) == WaitEnd::exited && probe.exit_code() == 0) {
          record_exit("ready", probe);
          return std::nullopt;
        }
        probe.end_group(Seconds(1));
        record_exit("ready", probe);
      } else if (read_file(inv_.ready_log, ready_log_from_).find(spec_.ready_pattern) !=
                 std::string::npos) {
        return std::nullopt;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    const std::string what =
        inv_.ready_command.empty()
            ? "'" + spec_.ready_pattern + "' did not appear in " + inv_.ready_log
            : "the readiness command never exited 0";
    return Stop{"failed",
                "setup not ready after " + std::to_string(static_cast<int>(spec_.ready_timeout_s)) +
                    " s (ready_timeout_s): " + what,
                tail_of("setup") + (inv_.ready_command.empty() ? "" : tail_of("ready"))};
  }

  // The run command, with counters and log capture around it.
  std::optional<Stop> measure(trace::RunDirectory& run_dir, Process* setup) {
    if (epoch_ns_ == 0) epoch_ns_ = trace::monotonic_ns();
    std::vector<std::pair<fs::path, fs::path>> followed;
    if (!inv_.logs.empty()) fs::create_directories(out("logs"));
    for (std::size_t i = 0; i < inv_.logs.size(); ++i) {
      const fs::path copy =
          out("logs") / (std::to_string(i) + "-" + fs::path(inv_.logs[i]).filename().string());
      followed.emplace_back(inv_.logs[i], copy);
      imported_logs_.push_back(copy);
    }
    LogFollower follower(followed);
    std::unique_ptr<Process> run;
    try {
      run = spawn("run", inv_.run);
    } catch (const std::exception& e) {
      return Stop{"failed", std::string("run: ") + e.what(), ""};
    }
    // The proc source reads the prover's own counters: the daemon's, else the run command's.
    counters::CounterOptions options = counters_;
    options.proc_pid = setup ? setup->pid() : run->pid();
    counters::CounterSampler sampler(out("counters.csv"), epoch_ns_, options);
    run_dir.set_metadata("counters", sampler.status_json());
    std::optional<Stop> stop;
    const WaitEnd end = run->wait(Seconds(spec_.run_timeout_s), rq_.stop);
    // Also what the run left behind in its group.
    run->end_group(Seconds(end == WaitEnd::exited ? 1 : spec_.teardown_timeout_s));
    record_exit("run", *run);
    if (end == WaitEnd::timed_out)
      stop = Stop{"failed",
                  "run timed out after " + std::to_string(static_cast<int>(spec_.run_timeout_s)) +
                      " s (run_timeout_s); its process group was killed",
                  tail_of("run")};
    else if (end == WaitEnd::stopped)
      stop = Stop{"interrupted", "stopped during the run; its process group was ended",
                  tail_of("run")};
    else if (run->exit_code() != 0)
      stop = Stop{"failed", "run command failed (" + run->describe() + ")", tail_of("run")};
    else if (setup && setup->poll())
      stop = Stop{"failed", "setup exited (" + setup->describe() + ") during the run",
                  tail_of("setup")};
    follower.stop();
    sampler.stop();
    run_dir.set_metadata("counters", sampler.status_json());
    nlohmann::json sampling = options.to_json();
    sampling.update(sampler.activity_json());
    sampling["epoch"] =
        inv_.setup.empty() ? "the run command's start" : "the setup command's start";
    run_dir.set_metadata("counter_sampling", sampling);
    return stop;
  }

  void tear_down(std::unique_ptr<Process>& setup) {
    if (!inv_.teardown.empty() && (setup || inv_.setup.empty())) {
      try {
        auto p = spawn("teardown", inv_.teardown);
        if (p->wait(Seconds(spec_.teardown_timeout_s)) != WaitEnd::exited)
          p->end_group(Seconds(1));
        else
          p->end_group(Seconds(1));
        record_exit("teardown", *p);
      } catch (const std::exception& e) {
        exits_["teardown"] = {{"status", std::string("not started: ") + e.what()}};
      }
    }
    if (setup) {
      setup->end_group(Seconds(spec_.teardown_timeout_s));
      record_exit("setup", *setup);
    }
  }

  std::optional<Stop> import(nlohmann::json& summary) {
    std::vector<fs::path> logs;
    for (const char* name : {"setup.stderr", "setup.stdout", "run.stderr", "run.stdout"})
      logs.push_back(out(name));
    logs.insert(logs.end(), imported_logs_.begin(), imported_logs_.end());
    try {
      summary = import_reference_log(logs, dir_, spec_.partitions);
    } catch (const LogImportError& e) {
      return Stop{"failed", std::string("import: ") + e.what(), tail_of("run")};
    }
    const auto count = rq_.arm->value("count");
    const int failed = summary.value("failed", 0), completed = summary.value("completed", 0);
    if (failed > 0)
      return Stop{"failed", std::to_string(failed) + " proofs failed", tail_of("run")};
    if (!count.empty() && std::to_string(completed) != count)
      return Stop{"failed",
                  "the Batch Summary counts " + std::to_string(completed) +
                      " completed proofs, the run asked for " + count,
                  tail_of("run")};
    return std::nullopt;
  }

  const CommandSpec& spec_;
  const counters::CounterOptions& counters_;
  const RunRequest& rq_;
  fs::path dir_;
  CommandInvocation inv_;
  nlohmann::json exits_ = nlohmann::json::object();
  std::vector<fs::path> imported_logs_;
  std::int64_t epoch_ns_ = 0;
  std::uintmax_t ready_log_from_ = 0;
};

class CommandRunner final : public Runner {
 public:
  CommandRunner(CommandSpec spec, counters::CounterOptions counters)
      : spec_(std::move(spec)), counters_(std::move(counters)) {}

  RunResult run(const RunRequest& rq) override {
    if (!rq.arm) throw std::logic_error("command runner: the request names no arm");
    return ExternalRun(spec_, counters_, rq).execute();
  }

 private:
  CommandSpec spec_;
  counters::CounterOptions counters_;
};

}  // namespace

std::unique_ptr<Runner> make_command_runner(CommandSpec spec, counters::CounterOptions counters) {
  return std::make_unique<CommandRunner>(std::move(spec), std::move(counters));
}

}  // namespace prooflab::harness
