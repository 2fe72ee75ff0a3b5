// An experiment: what to run (a base engine config, axes whose cartesian product gives the
// cells, exclusions, named variants = the A/B arms inside every cell) and how (repetitions,
// warm-up runs, the shuffle seed). Read from TOML (experiments/*.toml, schema in
// docs/experiments.md) or built by a command (`prooflab sweep`). Every error in a file
// names the file, the line and the key.
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/engine/config.hpp"
#include "harness/experiment/command_spec.hpp"

namespace prooflab::harness {

class ExperimentFileError : public std::invalid_argument {
 public:
  // what(): "<file>:<line>: <section> key '<key>': <message>" (line 0 is left out).
  ExperimentFileError(std::string file, int line, std::string section, std::string key,
                      const std::string& message);
  const std::string& file() const { return file_; }
  int line() const { return line_; }
  const std::string& key() const { return key_; }

 private:
  std::string file_;
  int line_;
  std::string key_;
};

// One knob as written: the key, its text and the line. For the engine, a config key and what
// EngineConfig::set takes; for a command runner, a knob name (substituted as {name}),
// `env.NAME` (an environment variable) or `overlay.a.b` (a key path of the config overlay,
// whose text is a TOML value: 32, "auto", true).
struct Setting {
  std::string key, value;
  int line = 0;
};

// One axis of the matrix: a knob and its values, or a group of knobs that vary together
// (zipped, e.g. c/j pairs): points[i][k] is the value of keys[k] at the axis's i-th point.
struct Axis {
  std::string name;  // the key, or the group's name
  std::vector<std::string> keys;
  std::vector<std::vector<std::string>> points;
  int line = 0;
};

// An A/B arm: overrides applied on top of the cell's config (extends already resolved).
struct Variant {
  std::string name;
  std::vector<Setting> overrides;
  int line = 0;
};

// Drops the cells whose axis values all match (each key: any of the listed values); with
// variants, only those arms of the matching cells.
struct Exclusion {
  std::vector<std::pair<std::string, std::vector<std::string>>> match;
  std::vector<std::string> variants;
  int line = 0;
};

// Bounds of [experiment] reps and warmup, and of the --reps / --warmup options.
inline constexpr std::uint32_t kMaxReps = 100000;
inline constexpr std::uint32_t kMaxWarmup = 1000;

struct ExperimentSpec {
  std::string name, description;
  std::string source = "(command line)";  // the file, for messages and experiment.json
  engine::EngineConfig base;       // the engine's base config (unused by a command runner)
  CommandSpec command;             // [runner] kind = "command"; command.enabled false: the engine
  std::vector<Setting> base_knobs;  // a command runner's [base]
  std::vector<Axis> axes;
  std::vector<Variant> variants;  // never empty; "baseline" is the reference arm
  std::vector<Exclusion> exclusions;
  std::uint32_t reps = 3;    // measured repetitions per (cell, variant)
  std::uint32_t warmup = 0;  // warm-up runs per cell, before the measured rounds
  std::uint64_t seed = 0;    // shuffles the order within each round
  bool shuffle = true;
  int axes_line = 0;  // where [axes] starts (cross-field errors point there)
};

ExperimentSpec parse_experiment_file(const std::filesystem::path& file);
// source_name stands for the file in messages.
ExperimentSpec parse_experiment_toml(std::string_view text, const std::string& source_name);

// The value of one knob as text in its canonical form ("16GiB" -> "17179869184", true ->
// "on", an unset vram_limit -> ""): what index.csv holds and what exclusions compare.
std::string config_value_text(const engine::EngineConfig& cfg, const std::string& key);
// The canonical text of `value` for `key` (throws ConfigError when EngineConfig rejects it).
std::string canonical_value(const std::string& key, const std::string& value);

// canonical_value for the engine; a command runner's knobs are compared as written.
std::string knob_canonical(const ExperimentSpec& spec, const std::string& key,
                           const std::string& value);

}  // namespace prooflab::harness
