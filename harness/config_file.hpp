// Engine configuration from a TOML file, `--set key=value` overrides and the options that
// stand for a key (--count, --constraints, ...). Errors name the file, the line and the key;
// an option goes through the key's own validation, so the two can never accept different
// values.
#pragma once

#include <CLI/CLI.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "core/engine/config.hpp"

namespace prooflab::harness {

// Applies every key of the file's top level (or of its [engine] table) to cfg.
void apply_config_file(engine::EngineConfig& cfg, const std::filesystem::path& file);
// Applies "key=value" strings.
void apply_overrides(engine::EngineConfig& cfg, const std::vector<std::string>& sets);

// A CLI11 check that accepts exactly the values EngineConfig::set accepts for `key`.
CLI::Validator config_key_check(const std::string& key);

}  // namespace prooflab::harness
