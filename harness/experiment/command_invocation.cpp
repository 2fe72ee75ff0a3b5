#include "harness/experiment/command_invocation.hpp"

#include <toml++/toml.h>

#include <regex>

#include "harness/experiment/command_template.hpp"

namespace prooflab::harness {

std::string overlay_value(const std::string& literal,
                          const std::map<std::string, std::string>& values) {
  const toml::table parsed = toml::parse("v = " + literal);
  const auto* s = parsed["v"].as_string();
  if (!s) return literal;
  const std::string text = s->get();
  const std::string replaced = substitute(text, values);
  const auto names = template_placeholders(text);
  if (names.size() == 1 && text == "{" + names.front() + "}") {
    static const std::regex integer(R"(-?[0-9]+)");
    if (std::regex_match(replaced, integer)) return replaced;
    if (replaced == "true" || replaced == "false") return replaced;
  }
  // A JSON string is a TOML basic string (same escapes), always in double quotes.
  return nlohmann::json(replaced).dump();
}

CommandInvocation make_invocation(const CommandSpec& spec, const Arm& arm, const RunContext& ctx) {
  CommandInvocation inv;
  auto& v = inv.values;
  for (const auto& [key, value] : arm.knobs)
    if (key.rfind("env.", 0) != 0 && key.rfind("overlay.", 0) != 0) v[key] = value;
  v["run_dir"] = ctx.run_dir.string();
  v["run_id"] = ctx.run_id;
  v["experiment"] = ctx.experiment;
  v["cell"] = ctx.cell;
  v["variant"] = ctx.variant;
  v["rep"] = std::to_string(ctx.rep);
  if (!spec.config.empty()) {
    inv.config_copy = ctx.run_dir / "config.toml";
    v["config"] = inv.config_copy.string();
    inv.config_base = substitute(spec.config.text, v);
  }
  auto sub = [&](const CommandText& t) {
    return t.empty() ? std::string() : substitute(t.text, v);
  };
  inv.setup = sub(spec.setup);
  inv.ready_command = sub(spec.ready_command);
  inv.ready_log = sub(spec.ready_log);
  inv.run = sub(spec.run);
  inv.teardown = sub(spec.teardown);
  for (const auto& l : spec.logs) inv.logs.push_back(sub(l));
  for (const auto& c : spec.versions) inv.versions.push_back(sub(c));
  for (const auto& [key, value] : arm.knobs) {
    if (key.rfind("env.", 0) == 0) inv.env.emplace_back(key.substr(4), substitute(value, v));
    if (key.rfind("overlay.", 0) == 0)
      inv.overlay.emplace_back(key.substr(8), overlay_value(value, v));
  }
  return inv;
}

nlohmann::json CommandInvocation::to_json() const {
  nlohmann::json j;
  j["kind"] = "command";
  nlohmann::json commands = nlohmann::json::object();
  auto put = [&](const char* key, const std::string& text) {
    if (!text.empty()) commands[key] = text;
  };
  put("setup", setup);
  put("ready_command", ready_command);
  put("run", run);
  put("teardown", teardown);
  j["commands"] = commands;
  if (!ready_log.empty()) j["ready_log"] = ready_log;
  j["logs"] = logs;
  j["env"] = nlohmann::json::object();
  for (const auto& [k, val] : env) j["env"][k] = val;
  j["overlay"] = nlohmann::json::object();
  for (const auto& [k, val] : overlay) j["overlay"][k] = val;
  if (!config_base.empty()) {
    j["config_base"] = config_base.string();
    j["config"] = config_copy.string();
  }
  return j;
}

}  // namespace prooflab::harness
