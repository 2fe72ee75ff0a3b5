// One run of a command runner, spelled out: the run's commands, environment and config
// overlay with every placeholder replaced by the arm's knobs and the run's built-ins. What
// the command runner executes and run.json records, and what `--dry-run` prints.
#pragma once

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "harness/experiment/command_spec.hpp"
#include "harness/experiment/experiment_matrix.hpp"

namespace prooflab::harness {

struct RunContext {
  std::filesystem::path run_dir;
  std::string run_id, experiment, cell, variant;
  std::uint32_t rep = 0;
};

struct CommandInvocation {
  std::string setup, ready_command, ready_log, run, teardown;  // "" when not configured
  std::vector<std::string> logs, versions;
  std::filesystem::path config_base, config_copy;        // the base file and <run_dir>/config.toml
  std::vector<std::pair<std::string, std::string>> env;  // name -> value
  std::vector<std::pair<std::string, std::string>> overlay;  // key path -> TOML value
  std::map<std::string, std::string> values;                 // placeholder -> text

  // run.json's `runner` (before the run: commands, env, overlay).
  nlohmann::json to_json() const;
};

// Throws TemplateError for a placeholder without a value (the plan's checks make that an
// error of the file before anything runs).
CommandInvocation make_invocation(const CommandSpec& spec, const Arm& arm, const RunContext& ctx);

// The TOML text of an overlay value after substitution: a string that was exactly one
// placeholder takes the type of what replaced it ("{gt}" with gt = 32 gives 32, "true" a
// boolean); other strings stay strings; other values are kept as they are.
std::string overlay_value(const std::string& literal,
                          const std::map<std::string, std::string>& values);

}  // namespace prooflab::harness
