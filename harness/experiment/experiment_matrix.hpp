// The expanded matrix of an experiment: the cartesian product of its axes (zipped groups
// count as one axis) less the exclusions, each cell with its variants (the A/B arms) and the
// engine config every repetition of an arm runs. The order of runs is experiment_schedule's.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/engine/config.hpp"
#include "harness/experiment/experiment_spec.hpp"

namespace prooflab::harness {

struct Cell {
  std::string id;  // e.g. "n1024_c20_j15"; a directory name and the index's `cell`
  std::vector<std::pair<std::string, std::string>> values;  // axis key -> value, axis order
};

// One (cell, variant) pair that was not excluded.
struct Arm {
  std::size_t cell = 0, variant = 0;
  engine::EngineConfig config;  // base, then the cell's axis values, then the variant's overrides
  // A command runner's knobs instead (config is then unused), in the same order of precedence:
  // key -> text, keys in order of first appearance.
  std::vector<std::pair<std::string, std::string>> knobs;
  bool external = false;

  // run.json's `config`: the engine config, or the knobs (count and concurrency as numbers).
  nlohmann::json recorded_config() const;
  // The canonical text of one knob ("" when the arm does not set it): index.csv's cells.
  std::string value(const std::string& key) const;
};

struct ExperimentMatrix {
  std::vector<Cell> cells;  // product order (first axis slowest); cells with no arm left out
  std::vector<Arm> arms;    // cell-major, variants in declaration order
  // index.csv's axis columns: count, concurrency, the axis keys, the keys variants set.
  std::vector<std::string> columns;
  std::size_t product_arms = 0;  // cells x variants before exclusions
};

// Throws ExperimentFileError for an exclusion that matches nothing, an empty matrix, or an
// arm whose config fails EngineConfig::validate (e.g. concurrency > count).
ExperimentMatrix expand_matrix(const ExperimentSpec& spec);

// "c20" for count=20, "j15" for concurrency, "two_lock" for lock_policy, "throttle-on", ...
std::string cell_token(const std::string& key, const std::string& value);

}  // namespace prooflab::harness
