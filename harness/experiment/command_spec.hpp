// `[runner] kind = "command"` of an experiment file: how one run of an external prover is
// made (docs/external-runner.md). Every text is a template (harness/experiment/command_template.hpp)
// over the run's knobs and the built-ins; each remembers its key and line for messages.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace prooflab::harness {

struct CommandText {
  std::string text;
  std::string key;  // "run", "logs[1]", ...
  int line = 0;
  bool empty() const { return text.empty(); }
};

struct CommandSpec {
  bool enabled = false;       // false: the built-in engine runs every arm
  int line = 0;               // where [runner] starts
  CommandText setup;          // started before the run, kept running through it (a daemon)
  CommandText ready_command;  // polled until it exits 0: the daemon answers
  CommandText ready_log;      // or: a file (e.g. {run_dir}/setup.stdout) ...
  std::string ready_pattern;  // ... that must come to contain this text
  double ready_timeout_s = 300;
  CommandText run;  // the benchmark: its output holds the per-proof lines and Batch Summary
  double run_timeout_s = 3600;
  CommandText teardown;  // after the run (the setup's process group is ended after it)
  double teardown_timeout_s = 30;
  std::vector<CommandText> logs;      // files whose growth during the run is captured
  std::vector<CommandText> versions;  // commands whose first output line is recorded
  CommandText config;                 // the base TOML file that overlays are merged into
  std::optional<int> partitions;      // per proof, for the importer's completeness check

  // Every template, in file order (setup, ready_command, ready_log, run, teardown, logs,
  // versions, config): what placeholders may appear in.
  std::vector<const CommandText*> templates() const;
};

// The keys [runner] accepts, for messages.
const char* runner_keys();

// Placeholders every command runner provides: count, concurrency, run_dir, run_id,
// experiment, cell, variant, rep, and config when `config` is set.
std::vector<std::string> builtin_placeholders(const CommandSpec& spec);

}  // namespace prooflab::harness
