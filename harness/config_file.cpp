#include "harness/config_file.hpp"

#include <optional>
#include <toml++/toml.h>

#include "core/io/input_file.hpp"
#include "core/text/parse.hpp"

namespace prooflab::harness {

namespace {

std::optional<std::string> value_text(const toml::node& node) {
  if (node.is_string()) return *node.value<std::string>();
  if (node.is_boolean()) return *node.value<bool>() ? "on" : "off";
  if (node.is_integer()) return std::to_string(*node.value<std::int64_t>());
  return std::nullopt;
}

}  // namespace

void apply_config_file(engine::EngineConfig& cfg, const std::filesystem::path& file) {
  const std::string text = io::read_input_file(file, "engine config", io::kMaxTomlBytes);
  toml::table root;
  try {
    root = toml::parse(text, file.string());
  } catch (const toml::parse_error& e) {
    throw engine::ConfigError(file.string() + ":" + std::to_string(e.source().begin.line) + ": " +
                              std::string(e.description()));
  }
  auto where = [&](const toml::node& node) {
    return file.string() + ":" + std::to_string(node.source().begin.line);
  };
  const toml::table* table = &root;
  if (auto* t = root["engine"].as_table()) {
    table = t;
    // With an [engine] table every key belongs in it: one above it, or another table (a
    // misspelt [engin]), would otherwise be ignored.
    for (const auto& [key, node] : root) {
      if (key.str() == "engine") continue;
      throw engine::ConfigError(
          where(node) + ": " +
          (node.is_table() ? "unexpected table [" + text::excerpt(key.str()) + "]"
                           : "key '" + text::excerpt(key.str()) + "' outside [engine]") +
          " (a config with an [engine] table holds every key in it)");
    }
  }
  for (const auto& [key, node] : *table) {
    if (node.is_table()) {
      throw engine::ConfigError(where(node) + ": unexpected table [" + text::excerpt(key.str()) +
                                "] (an engine config holds keys, optionally under [engine])");
    }
    const auto value = value_text(node);
    if (!value)
      throw engine::ConfigError(where(node) + ": key '" + text::excerpt(key.str()) +
                                "' must be a string, integer or boolean");
    try {
      cfg.set(std::string(key.str()), *value);
    } catch (const engine::ConfigError& e) {
      throw engine::ConfigError(where(node) + ": " + e.what());
    }
  }
}

void apply_overrides(engine::EngineConfig& cfg, const std::vector<std::string>& sets) {
  for (const auto& s : sets) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0)
      throw engine::ConfigError("--set '" + text::excerpt(s) + "': expected key=value");
    try {
      cfg.set(s.substr(0, eq), s.substr(eq + 1));
    } catch (const engine::ConfigError& e) {
      throw engine::ConfigError(std::string("--set: ") + e.what());
    }
  }
}

CLI::Validator config_key_check(const std::string& key) {
  return CLI::Validator(
      [key](std::string& value) -> std::string {
        engine::EngineConfig scratch;
        try {
          scratch.set(key, value);
        } catch (const engine::ConfigError& e) {
          return e.what();
        }
        return {};
      },
      "", "config key " + key);
}

}  // namespace prooflab::harness
