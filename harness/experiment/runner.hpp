// What runs one run of an experiment into its run directory: the built-in engine
// (engine_runner.cpp, the default) or an external command (command_runner.cpp, `[runner]
// kind = "command"`). One small interface, as core/engine/backend.hpp is for the backends:
// the experiment runner (scheduling, resume, records) does not know which one it drives.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "core/engine/config.hpp"
#include "harness/experiment/command_spec.hpp"
#include "harness/counters/options.hpp"
#include "harness/experiment/experiment_matrix.hpp"

namespace prooflab::harness {

struct RunRequest {
  const engine::EngineConfig& config;  // the arm's engine config (engine runs)
  std::filesystem::path out_parent;    // the run directory is out_parent / run_id
  std::string run_id;                  // <experiment>/<cell>/<variant>/<rep>
  const std::atomic<bool>* stop;       // set: end the run now (it ends "interrupted")
  const Arm* arm = nullptr;            // the arm (a command runner's knobs)
  std::string experiment, cell, variant;
  std::uint32_t rep = 0;
};

struct RunResult {
  std::string status;  // complete | failed | interrupted (what run.json says)
  nlohmann::json summary;
  std::string reason;  // why a run failed or was interrupted ("" when complete)
};

class Runner {
 public:
  virtual ~Runner() = default;
  // Makes the run directory out_parent / run_id. Throws only for errors that no other run
  // could escape (the engine's bad config, a missing backend); a failure of this run is
  // its status and reason.
  virtual RunResult run(const RunRequest& request) = 0;
};

// prooflab's own engine (run_batch_to_directory, quiet).
std::unique_ptr<Runner> make_engine_runner(std::filesystem::path param_dir);

// An external prover driven by shell commands (docs/external-runner.md); counters are
// sampled during each run as they are for the engine.
std::unique_ptr<Runner> make_command_runner(CommandSpec spec, counters::CounterOptions counters);

}  // namespace prooflab::harness
