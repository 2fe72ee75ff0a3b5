// Engine configuration from a TOML file and `--set key=value` overrides. Errors name the
// file, the line and the key.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/engine/config.hpp"

namespace prooflab::harness {

// Applies every key of the file's top level (or of its [engine] table) to cfg.
void apply_config_file(engine::EngineConfig& cfg, const std::filesystem::path& file);
// Applies "key=value" strings.
void apply_overrides(engine::EngineConfig& cfg, const std::vector<std::string>& sets);

}  // namespace prooflab::harness
