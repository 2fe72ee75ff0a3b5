#include "harness/config_file.hpp"

#include <toml++/toml.h>

namespace prooflab::harness {

namespace {

std::string value_text(const toml::node& node) {
  if (node.is_string()) return *node.value<std::string>();
  if (node.is_boolean()) return *node.value<bool>() ? "on" : "off";
  if (node.is_integer()) return std::to_string(*node.value<std::int64_t>());
  return {};
}

}  // namespace

void apply_config_file(engine::EngineConfig& cfg, const std::filesystem::path& file) {
  toml::table root;
  try {
    root = toml::parse_file(file.string());
  } catch (const toml::parse_error& e) {
    throw engine::ConfigError(file.string() + ":" + std::to_string(e.source().begin.line) + ": " +
                              std::string(e.description()));
  }
  const toml::table* table = &root;
  if (auto* t = root["engine"].as_table()) table = t;
  for (const auto& [key, node] : *table) {
    const std::string where = file.string() + ":" + std::to_string(node.source().begin.line);
    if (node.is_table()) {
      throw engine::ConfigError(where + ": unexpected table [" + std::string(key.str()) +
                                "] (an engine config holds keys, optionally under [engine])");
    }
    const std::string text = value_text(node);
    if (text.empty())
      throw engine::ConfigError(where + ": key '" + std::string(key.str()) +
                                "' must be a string, integer or boolean");
    try {
      cfg.set(std::string(key.str()), text);
    } catch (const engine::ConfigError& e) {
      throw engine::ConfigError(where + ": " + e.what());
    }
  }
}

void apply_overrides(engine::EngineConfig& cfg, const std::vector<std::string>& sets) {
  for (const auto& s : sets) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0)
      throw engine::ConfigError("--set '" + s + "': expected key=value");
    try {
      cfg.set(s.substr(0, eq), s.substr(eq + 1));
    } catch (const engine::ConfigError& e) {
      throw engine::ConfigError(std::string("--set: ") + e.what());
    }
  }
}

}  // namespace prooflab::harness
