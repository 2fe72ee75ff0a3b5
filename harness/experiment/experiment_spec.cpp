#include "harness/experiment/experiment_spec.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "core/engine/knobs.hpp"
#include "harness/experiment/command_template.hpp"
#include "harness/experiment/toml_source.hpp"
#include "core/io/input_file.hpp"
#include "harness/experiment/directory_names.hpp"

namespace prooflab::harness {

namespace {

std::string error_text(const std::string& file, int line, const std::string& section,
                       const std::string& key, const std::string& message) {
  std::string where = file;
  if (line > 0) where += ":" + std::to_string(line);
  std::string what = section;
  if (!key.empty()) what += (what.empty() ? "" : " ") + std::string("key '") + key + "'";
  return where + ": " + (what.empty() ? "" : what + ": ") + message;
}

}  // namespace

ExperimentFileError::ExperimentFileError(std::string file, int line, std::string section,
                                         std::string key, const std::string& message)
    : std::invalid_argument(error_text(file, line, section, key, message)),
      file_(std::move(file)),
      line_(line),
      key_(std::move(key)) {}

std::string config_value_text(const engine::EngineConfig& cfg, const std::string& key) {
  const engine::Knob* knob = engine::find_knob(key);
  if (knob == nullptr || knob->json(cfg).is_null()) return "";
  return knob->text(cfg);
}

std::string canonical_value(const std::string& key, const std::string& value) {
  engine::EngineConfig scratch;
  scratch.set(key, value);
  return config_value_text(scratch, key);
}

std::string knob_canonical(const ExperimentSpec& spec, const std::string& key,
                           const std::string& value) {
  return spec.command.enabled ? value : canonical_value(key, value);
}

namespace {

std::optional<std::string> scalar_text(const toml::node& node) {
  if (const auto* s = node.as_string()) return s->get();
  if (const auto* b = node.as_boolean()) return b->get() ? "on" : "off";
  if (const auto* i = node.as_integer()) return std::to_string(i->get());
  return std::nullopt;
}

// The message of a ConfigError without its "config key 'k': " prefix (the caller names the key).
std::string config_detail(const std::string& key, const engine::ConfigError& e) {
  std::string m = e.what();
  const std::string prefix = "config key '" + key + "': ";
  if (m.rfind(prefix, 0) == 0) m.erase(0, prefix.size());
  return m;
}

std::string join(const std::vector<std::string>& items, const std::string& sep = ", ") {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : sep) + s;
  return out;
}

struct RawVariant {
  std::string name;
  int line = 0;
  std::vector<Setting> own;
  std::vector<std::pair<std::string, int>> extends;
};

class Parser {
 public:
  explicit Parser(std::string file) : file_(std::move(file)) {}

  ExperimentSpec parse(std::string_view text, const std::string& default_name) {
    toml::table root;
    try {
      root = toml::parse(text, file_);
    } catch (const toml::parse_error& e) {
      fail(line_of(e.source()), "", "", "TOML syntax: " + std::string(e.description()));
    }
    spec_.source = file_;
    spec_.name = default_name;
    for (const auto& [key, node] : in_file_order(root)) {
      const std::string k(key->str());
      if (k == "experiment" || k == "base" || k == "axes" || k == "variants" || k == "runner") {
        if (!node->is_table()) fail(line_of(key->source()), "", k, "must be a table ([" + k + "])");
      } else if (k == "exclude") {
        if (!node->is_array())
          fail(line_of(key->source()), "", k, "must be an array of tables ([[exclude]])");
      } else {
        fail(line_of(key->source()), "", k,
             "unknown top-level entry (an experiment file has [experiment], [runner], [base], "
             "[axes], [variants] and [[exclude]])");
      }
    }
    // Fixed order whatever the file's: axes before variants (a variant may not set an axis
    // key) and both before exclusions (which name axis values and variants).
    if (const auto* t = root["experiment"].as_table()) parse_experiment(*t);
    if (!is_safe_name(spec_.name))
      fail(0, "[experiment]", "name",
           "'" + spec_.name + "' cannot be a directory name (use letters, digits, . _ + -)");
    // [runner] first: it decides what the knobs of [base], [axes] and [variants] are.
    if (const auto* t = root["runner"].as_table()) parse_runner(*t);
    if (const auto* t = root["base"].as_table()) parse_base(*t);
    if (const auto* t = root["axes"].as_table()) {
      spec_.axes_line = line_of(t->source());
      parse_axes(*t);
    }
    if (const auto* t = root["variants"].as_table()) {
      parse_variants(*t);
    } else {
      spec_.variants.push_back({"baseline", {}, 0});
    }
    if (const auto* a = root["exclude"].as_array()) parse_exclusions(*a);
    if (spec_.command.enabled) check_command_knobs();
    return std::move(spec_);
  }

 private:
  [[noreturn]] void fail(int line, const std::string& section, const std::string& key,
                         const std::string& message) const {
    throw ExperimentFileError(file_, line, section, key, message);
  }

  // Validates `value` for engine key `key` on a scratch config (for a command runner: a knob
  // name and a string, integer or boolean).
  std::string checked_value(const std::string& section, const std::string& key,
                            const toml::node& node, int line) const {
    if (spec_.command.enabled) return knob_value(section, key, node, line);
    const auto text = scalar_text(node);
    if (!text) fail(line, section, key, "must be a string, integer or boolean");
    try {
      canonical_value(key, *text);
    } catch (const engine::ConfigError& e) {
      fail(line, section, key, config_detail(key, e));
    }
    return *text;
  }

  std::int64_t integer(const std::string& section, const std::string& key, const toml::node& node,
                       std::int64_t lo, std::int64_t hi) const {
    const auto* i = node.as_integer();
    const int line = line_of(node.source());
    if (!i || i->get() < lo || i->get() > hi)
      fail(line, section, key,
           "must be an integer from " + std::to_string(lo) + " to " + std::to_string(hi));
    return i->get();
  }

  void parse_experiment(const toml::table& t) {
    const std::string section = "[experiment]";
    for (const auto& [key, node] : in_file_order(t)) {
      const std::string k(key->str());
      const int line = line_of(key->source());
      if (k == "name" || k == "description") {
        const auto* s = node->as_string();
        if (!s) fail(line, section, k, "must be a string");
        (k == "name" ? spec_.name : spec_.description) = s->get();
        if (k == "name" && !is_safe_name(spec_.name))
          fail(line, section, k,
               "'" + spec_.name + "' cannot be a directory name (use letters, digits, . _ + -)");
      } else if (k == "reps") {
        spec_.reps = static_cast<std::uint32_t>(integer(section, k, *node, 1, kMaxReps));
      } else if (k == "warmup") {
        spec_.warmup = static_cast<std::uint32_t>(integer(section, k, *node, 0, kMaxWarmup));
      } else if (k == "seed") {
        spec_.seed = static_cast<std::uint64_t>(
            integer(section, k, *node, 0, std::numeric_limits<std::int64_t>::max()));
      } else if (k == "shuffle") {
        const auto* b = node->as_boolean();
        if (!b) fail(line, section, k, "must be true or false");
        spec_.shuffle = b->get();
      } else {
        fail(line, section, k,
             "unknown key (accepted: name, description, reps, warmup, seed, shuffle)");
      }
    }
  }

  void parse_base(const toml::table& t) {
    for (const auto& [key, node] : in_file_order(t)) {
      const std::string k(key->str());
      const int line = line_of(key->source());
      if (spec_.command.enabled && (k == "env" || k == "overlay")) {
        add_command_table("[base]", k, *node, line, spec_.base_knobs);
        continue;
      }
      if (node->is_table() || node->is_array())
        fail(line, "[base]", k, "must be a single value (lists of values belong in [axes])");
      const std::string value = checked_value("[base]", k, *node, line);
      if (spec_.command.enabled)
        spec_.base_knobs.push_back({k, value, line});
      else
        spec_.base.set(k, value);
    }
  }

  std::vector<std::string> axis_values(const std::string& section, const std::string& key,
                                       const toml::array& values, int line) const {
    if (values.empty()) fail(line, section, key, "the axis has no values");
    std::vector<std::string> out;
    for (const auto& v : values) {
      const int vline = line_of(v.source()) > 0 ? line_of(v.source()) : line;
      out.push_back(checked_value(section, key, v, vline));
    }
    return out;
  }

  void claim_axis_key(const std::string& key, int line) {
    if (!axis_keys_.insert(key).second)
      fail(line, "[axes]", key, "appears in two axes (a knob can vary along one axis only)");
  }

  void parse_axes(const toml::table& t) {
    for (const auto& [key, node] : in_file_order(t)) {
      const std::string k(key->str());
      const int line = line_of(key->source());
      Axis axis{k, {}, {}, line};
      if (const auto* values = node->as_array()) {
        claim_axis_key(k, line);
        axis.keys = {k};
        for (auto& v : axis_values("[axes]", k, *values, line)) axis.points.push_back({v});
      } else if (const auto* group = node->as_table()) {
        const std::string section = "[axes." + k + "]";
        std::vector<std::vector<std::string>> columns;
        for (const auto& [gkey, gnode] : in_file_order(*group)) {
          const std::string gk(gkey->str());
          const int gline = line_of(gkey->source());
          const auto* values = gnode->as_array();
          if (!values)
            fail(gline, section, gk,
                 "must be a list of values (the knobs of a group vary together)");
          claim_axis_key(gk, gline);
          axis.keys.push_back(gk);
          columns.push_back(axis_values(section, gk, *values, gline));
          if (columns.back().size() != columns.front().size())
            fail(gline, section, gk,
                 "has " + std::to_string(columns.back().size()) + " values but '" +
                     axis.keys.front() + "' has " + std::to_string(columns.front().size()) +
                     " (the knobs of a group vary together, point by point)");
        }
        if (axis.keys.empty()) fail(line, "[axes]", k, "the group has no knobs");
        for (std::size_t i = 0; i < columns.front().size(); ++i) {
          std::vector<std::string> point;
          for (const auto& column : columns) point.push_back(column[i]);
          axis.points.push_back(std::move(point));
        }
      } else {
        fail(line, "[axes]", k,
             "must be a list of values, or a table of lists that vary together (a single value "
             "belongs in [base])");
      }
      std::set<std::vector<std::string>> seen;
      for (const auto& point : axis.points) {
        std::vector<std::string> canon;
        for (std::size_t i = 0; i < point.size(); ++i)
          canon.push_back(knob_canonical(spec_, axis.keys[i], point[i]));
        if (!seen.insert(canon).second)
          fail(line, "[axes]", k, "value '" + join(point, ", ") + "' appears twice");
      }
      spec_.axes.push_back(std::move(axis));
    }
  }

  void parse_variants(const toml::table& t) {
    std::vector<RawVariant> raw;
    for (const auto& [key, node] : in_file_order(t)) {
      const std::string name(key->str());
      const int line = line_of(key->source());
      const std::string section = "[variants." + name + "]";
      if (!is_safe_name(name))
        fail(line, "[variants]", name,
             "a variant name becomes a directory name (use letters, digits, . _ + -)");
      const auto* table = node->as_table();
      if (!table)
        fail(line, "[variants]", name,
             "must be a table of knob overrides, e.g. { dealloc_policy = \"serialized\" }");
      RawVariant v{name, line, {}, {}};
      for (const auto& [vkey, vnode] : in_file_order(*table)) {
        const std::string k(vkey->str());
        const int vline = line_of(vkey->source());
        if (k == "extends") {
          auto add = [&](const toml::node& n) {
            const auto* s = n.as_string();
            if (!s) fail(vline, section, k, "must be a variant name or a list of them");
            v.extends.emplace_back(s->get(), vline);
          };
          if (const auto* list = vnode->as_array()) {
            for (const auto& n : *list) add(n);
          } else {
            add(*vnode);
          }
          continue;
        }
        if (spec_.command.enabled && (k == "env" || k == "overlay")) {
          add_command_table(section, k, *vnode, vline, v.own);
          continue;
        }
        if (vnode->is_table() || vnode->is_array())
          fail(vline, section, k, "must be a single value (a variant sets each knob once)");
        const std::string value = checked_value(section, k, *vnode, vline);
        if (axis_keys_.count(k))
          fail(vline, section, k,
               "is an axis of this experiment; a variant may not set it (every arm of a cell has "
               "the cell's axis values)");
        v.own.push_back({k, value, vline});
      }
      raw.push_back(std::move(v));
    }
    if (raw.empty())
      fail(line_of(t.source()), "[variants]", "",
           "no variants (leave [variants] out for a single baseline)");
    if (std::none_of(raw.begin(), raw.end(),
                     [](const RawVariant& v) { return v.name == "baseline"; }))
      fail(line_of(t.source()), "[variants]", "baseline",
           "missing: the reference arm of every cell must be named 'baseline' (variants: " +
               join(names(raw)) + ")");

    std::map<std::string, std::vector<Setting>> resolved;
    std::set<std::string> visiting;
    for (const auto& v : raw) resolve(v.name, raw, resolved, visiting);
    for (const auto& v : raw) spec_.variants.push_back({v.name, resolved.at(v.name), v.line});
  }

  static std::vector<std::string> names(const std::vector<RawVariant>& raw) {
    std::vector<std::string> out;
    for (const auto& v : raw) out.push_back(v.name);
    return out;
  }

  const std::vector<Setting>& resolve(const std::string& name, const std::vector<RawVariant>& raw,
                                      std::map<std::string, std::vector<Setting>>& resolved,
                                      std::set<std::string>& visiting) const {
    if (auto it = resolved.find(name); it != resolved.end()) return it->second;
    const auto& v =
        *std::find_if(raw.begin(), raw.end(), [&](const RawVariant& r) { return r.name == name; });
    visiting.insert(name);
    const std::string section = "[variants." + name + "]";
    std::vector<Setting> merged;
    std::map<std::string, std::pair<std::string, std::string>> set_by;  // key -> (canonical, from)
    for (const auto& extended : v.extends) {
      const std::string& base = extended.first;
      const int line = extended.second;
      if (std::none_of(raw.begin(), raw.end(), [&](const RawVariant& r) { return r.name == base; }))
        fail(line, section, "extends",
             "unknown variant '" + base + "' (variants: " + join(names(raw)) + ")");
      if (visiting.count(base))
        fail(line, section, "extends", "'" + base + "' leads back to '" + name + "' (a cycle)");
      for (const auto& s : resolve(base, raw, resolved, visiting)) {
        const std::string canon = knob_canonical(spec_, s.key, s.value);
        if (auto it = set_by.find(s.key); it != set_by.end()) {
          if (it->second.first != canon)
            fail(line, section, "extends",
                 "'" + it->second.second + "' and '" + base + "' set '" + s.key +
                     "' to different values (" + it->second.first + " vs " + canon +
                     "); set it in this variant to say which wins");
          continue;
        }
        set_by[s.key] = {canon, base};
        merged.push_back(s);
      }
    }
    for (const auto& s : v.own) {
      auto it = std::find_if(merged.begin(), merged.end(),
                             [&](const Setting& m) { return m.key == s.key; });
      if (it != merged.end())
        *it = s;
      else
        merged.push_back(s);
    }
    visiting.erase(name);
    return resolved[name] = std::move(merged);
  }

  const Axis* axis_with_key(const std::string& key, std::size_t* index) const {
    for (const auto& a : spec_.axes) {
      const auto it = std::find(a.keys.begin(), a.keys.end(), key);
      if (it != a.keys.end()) {
        *index = static_cast<std::size_t>(it - a.keys.begin());
        return &a;
      }
    }
    return nullptr;
  }

  void parse_exclusions(const toml::array& list) {
    for (const auto& item : list) {
      const auto* t = item.as_table();
      const int line = line_of(item.source());
      if (!t)
        fail(line, "[[exclude]]", "",
             "each exclusion must be a table ([[exclude]] with axis keys)");
      Exclusion ex{{}, {}, line};
      std::vector<std::string> axis_names;
      for (const auto& a : spec_.axes)
        axis_names.insert(axis_names.end(), a.keys.begin(), a.keys.end());
      for (const auto& [key, node] : in_file_order(*t)) {
        const std::string k(key->str());
        const int kline = line_of(key->source());
        std::vector<const toml::node*> values;
        if (const auto* arr = node->as_array()) {
          for (const auto& v : *arr) values.push_back(&v);
          if (values.empty()) fail(kline, "[[exclude]]", k, "the list is empty");
        } else {
          values.push_back(node);
        }
        if (k == "variants") {
          for (const auto* v : values) {
            const auto* s = v->as_string();
            if (!s) fail(kline, "[[exclude]]", k, "must be a variant name or a list of them");
            if (std::none_of(spec_.variants.begin(), spec_.variants.end(),
                             [&](const Variant& var) { return var.name == s->get(); })) {
              std::vector<std::string> known;
              for (const auto& var : spec_.variants) known.push_back(var.name);
              fail(kline, "[[exclude]]", k,
                   "unknown variant '" + s->get() + "' (variants: " + join(known) + ")");
            }
            ex.variants.push_back(s->get());
          }
          continue;
        }
        std::size_t index = 0;
        const Axis* axis = axis_with_key(k, &index);
        if (!axis)
          fail(kline, "[[exclude]]", k,
               "is not an axis (axes: " +
                   (axis_names.empty() ? std::string("none") : join(axis_names)) +
                   "; 'variants' names arms)");
        std::vector<std::string> texts;
        for (const auto* v : values) {
          const std::string value = checked_value("[[exclude]]", k, *v, kline);
          const std::string canon = knob_canonical(spec_, k, value);
          std::vector<std::string> occurring;
          bool found = false;
          for (const auto& point : axis->points) {
            occurring.push_back(point[index]);
            found = found || knob_canonical(spec_, k, point[index]) == canon;
          }
          if (!found)
            fail(kline, "[[exclude]]", k,
                 "value '" + value + "' is not on the axis (values: " + join(occurring) + ")");
          texts.push_back(value);
        }
        ex.match.emplace_back(k, std::move(texts));
      }
      if (ex.match.empty())
        fail(line, "[[exclude]]", "",
             "names no axis key (an exclusion drops the cells whose axis values match)");
      spec_.exclusions.push_back(std::move(ex));
    }
  }

  // ---- [runner] kind = "command" (docs/external-runner.md)

  CommandText command_text(const std::string& key, const toml::node& node, int line) const {
    const auto* s = node.as_string();
    if (!s || s->get().empty()) fail(line, "[runner]", key, "must be a non-empty string");
    try {
      template_placeholders(s->get());
    } catch (const TemplateError& e) {
      fail(line, "[runner]", key, e.what());
    }
    return {s->get(), key, line};
  }

  double seconds(const std::string& key, const toml::node& node, int line) const {
    const auto v = node.value<double>();
    if (!v || !(*v > 0) || *v > 7 * 86400.0)
      fail(line, "[runner]", key, "must be a number of seconds, more than 0 and at most 604800");
    return *v;
  }

  void parse_runner(const toml::table& t) {
    CommandSpec& c = spec_.command;
    c.line = line_of(t.source());
    const auto* kind = t["kind"].as_string();
    if (!kind)
      fail(c.line, "[runner]", "kind", "missing or not a string (accepted: command | engine)");
    if (kind->get() != "command" && kind->get() != "engine")
      fail(line_of(kind->source()), "[runner]", "kind",
           "bad value '" + kind->get() + "' (accepted: command | engine)");
    if (kind->get() == "engine") {
      if (t.size() > 1)
        fail(c.line, "[runner]", "", "kind = \"engine\" takes no other keys (they describe a command)");
      return;
    }
    c.enabled = true;
    for (const auto& [key, node] : in_file_order(t)) {
      const std::string k(key->str());
      const int line = line_of(key->source());
      if (k == "kind") continue;
      if (k == "setup") c.setup = command_text(k, *node, line);
      else if (k == "ready_command") c.ready_command = command_text(k, *node, line);
      else if (k == "ready_log") c.ready_log = command_text(k, *node, line);
      else if (k == "ready_pattern") {
        const auto* s = node->as_string();
        if (!s || s->get().empty()) fail(line, "[runner]", k, "must be a non-empty string");
        c.ready_pattern = s->get();
      } else if (k == "ready_timeout_s") c.ready_timeout_s = seconds(k, *node, line);
      else if (k == "run") c.run = command_text(k, *node, line);
      else if (k == "run_timeout_s") c.run_timeout_s = seconds(k, *node, line);
      else if (k == "teardown") c.teardown = command_text(k, *node, line);
      else if (k == "teardown_timeout_s") c.teardown_timeout_s = seconds(k, *node, line);
      else if (k == "config") c.config = command_text(k, *node, line);
      else if (k == "logs" || k == "versions") {
        const auto* list = node->as_array();
        if (!list) fail(line, "[runner]", k, "must be a list of strings");
        auto& out = k == "logs" ? c.logs : c.versions;
        for (const auto& item : *list) {
          const int iline = line_of(item.source()) > 0 ? line_of(item.source()) : line;
          out.push_back(command_text(k + "[" + std::to_string(out.size()) + "]", item, iline));
        }
      } else if (k == "partitions") {
        c.partitions = static_cast<int>(integer("[runner]", k, *node, 1, 100000));
      } else {
        fail(line, "[runner]", k, "unknown key (accepted: " + std::string(runner_keys()) + ")");
      }
    }
    if (c.run.empty()) fail(c.line, "[runner]", "run", "missing: the command that runs the benchmark");
    if (c.ready_log.empty() != c.ready_pattern.empty())
      fail(c.line, "[runner]", c.ready_pattern.empty() ? "ready_pattern" : "ready_log",
           "ready_log and ready_pattern go together (the file to watch and the text to wait for)");
    if (!c.ready_log.empty() && !c.ready_command.empty())
      fail(c.ready_log.line, "[runner]", "ready_log",
           "give one readiness check: ready_command or ready_log");
    if ((!c.ready_log.empty() || !c.ready_command.empty()) && c.setup.empty())
      fail(c.line, "[runner]", c.ready_log.empty() ? "ready_command" : "ready_log",
           "a readiness check needs a setup command (what would become ready?)");
  }

  static bool is_knob_name(const std::string& k) {
    if (k.empty() || !(std::isalpha(static_cast<unsigned char>(k[0])) || k[0] == '_')) return false;
    return std::all_of(k.begin(), k.end(),
                       [](unsigned char ch) { return std::isalnum(ch) || ch == '_'; });
  }

  // A command runner's knob: a placeholder name with a string, integer or boolean value.
  std::string knob_value(const std::string& section, const std::string& key,
                         const toml::node& node, int line) const {
    if (!is_knob_name(key) || key == "env" || key == "overlay")
      fail(line, section, key,
           "is not a knob name (letters, digits and _; env and overlay are tables here)");
    std::string text;
    if (const auto* s = node.as_string()) text = s->get();
    else if (const auto* i = node.as_integer()) text = std::to_string(i->get());
    else if (const auto* b = node.as_boolean()) text = b->get() ? "true" : "false";
    else fail(line, section, key, "must be a string, integer or boolean");
    if (key == "count" || key == "concurrency") {
      const auto* i = node.as_integer();
      if (!i || i->get() < 1 || i->get() > 1000000)
        fail(line, section, key, "must be an integer from 1 to 1000000");
    }
    return text;
  }

  // `env = { NAME = "value" }` and `overlay = { gpus.gpu_threads = 32 }` of [base] or a
  // variant, as knobs env.NAME and overlay.gpus.gpu_threads.
  void add_command_table(const std::string& section, const std::string& which,
                         const toml::node& node, int line, std::vector<Setting>& out) const {
    const auto* table = node.as_table();
    if (!table)
      fail(line, section, which,
           which == "env" ? "must be a table of variables, e.g. env = { CUZK_GPU_THREADS = \"32\" }"
                          : "must be a table of key paths, e.g. overlay = { gpus.gpu_threads = 32 }");
    auto put = [&](const std::string& key, std::string value, int kline) {
      for (auto& s : out)
        if (s.key == key) fail(kline, section, key, "is set twice");
      out.push_back({key, std::move(value), kline});
    };
    if (which == "env") {
      for (const auto& [k, v] : in_file_order(*table)) {
        const std::string name(k->str());
        const int kline = line_of(k->source());
        if (!is_knob_name(name))
          fail(kline, section, "env." + name, "is not an environment variable name");
        std::string text;
        if (const auto* s = v->as_string()) text = s->get();
        else if (const auto* i = v->as_integer()) text = std::to_string(i->get());
        else fail(kline, section, "env." + name, "must be a string or an integer");
        check_template(section, "env." + name, text, kline);
        put("env." + name, text, kline);
      }
      return;
    }
    std::function<void(const toml::table&, const std::string&)> walk =
        [&](const toml::table& t, const std::string& prefix) {
          for (const auto& [k, v] : in_file_order(t)) {
            const std::string path = prefix + (prefix.empty() ? "" : ".") + std::string(k->str());
            const int kline = line_of(k->source());
            if (const auto* sub = v->as_table()) {
              walk(*sub, path);
              continue;
            }
            if (const auto* s = v->as_string()) check_template(section, "overlay." + path, s->get(), kline);
            std::ostringstream literal;
            if (const auto* arr = v->as_array()) literal << *arr;
            else if (const auto* s = v->as_string()) literal << nlohmann::json(s->get()).dump();
            else if (const auto* i = v->as_integer()) literal << *i;
            else if (const auto* f = v->as_floating_point()) literal << *f;
            else if (const auto* b = v->as_boolean()) literal << *b;
            else fail(kline, section, "overlay." + path, "must be a TOML value (not a date)");
            put("overlay." + path, literal.str(), kline);
          }
        };
    walk(*table, "");
  }

  void check_template(const std::string& section, const std::string& key, const std::string& text,
                      int line) const {
    try {
      template_placeholders(text);
    } catch (const TemplateError& e) {
      fail(line, section, key, e.what());
    }
  }

  // Every placeholder names a built-in or a knob; every knob is used somewhere; overlays
  // have a base file and the commands are pointed at the copy.
  void check_command_knobs() const {
    const CommandSpec& c = spec_.command;
    struct Use {
      std::string where;
      int line;
    };
    std::map<std::string, Use> used;  // placeholder -> first use
    std::vector<std::pair<std::string, Use>> uses;
    auto scan = [&](const std::string& text, const std::string& where, int line) {
      for (const auto& name : template_placeholders(text)) {
        used.emplace(name, Use{where, line});
        uses.push_back({name, {where, line}});
      }
    };
    for (const auto* t : c.templates()) scan(t->text, "[runner] key '" + t->key + "'", t->line);
    std::vector<const Setting*> knobs;
    for (const auto& s : spec_.base_knobs) knobs.push_back(&s);
    for (const auto& v : spec_.variants)
      for (const auto& s : v.overrides) knobs.push_back(&s);
    std::set<std::string> defined;
    bool overlay = false;
    for (const auto* s : knobs) {
      const bool is_env = s->key.rfind("env.", 0) == 0, is_overlay = s->key.rfind("overlay.", 0) == 0;
      overlay = overlay || is_overlay;
      if (is_env || (is_overlay && !s->value.empty() && s->value.front() == '"'))
        scan(s->value, "key '" + s->key + "'", s->line);
      if (!is_env && !is_overlay) defined.insert(s->key);
    }
    for (const auto& a : spec_.axes) defined.insert(a.keys.begin(), a.keys.end());
    const auto builtins = builtin_placeholders(c);
    std::string known;
    for (const auto& d : defined) known += (known.empty() ? "" : ", ") + d;
    for (const auto& [name, use] : uses) {
      if (defined.count(name) ||
          std::find(builtins.begin(), builtins.end(), name) != builtins.end())
        continue;
      throw ExperimentFileError(
          file_, use.line, "", "",
          use.where + ": placeholder {" + name + "} is neither a knob (" +
              (known.empty() ? std::string("none set") : known) + ") nor a built-in (" +
              join(builtins) + ")" +
              (name == "config" ? "; {config} needs [runner] config = the base file" : ""));
    }
    auto check_used = [&](const std::string& key, int line, const std::string& section) {
      if (key == "count" || key == "concurrency" || used.count(key)) return;
      fail(line, section, key,
           "is not used by the runner: no {" + key +
               "} in [runner]'s commands, env or overlay values, so it would change nothing");
    };
    for (const auto& s : spec_.base_knobs)
      if (defined.count(s.key)) check_used(s.key, s.line, "[base]");
    for (const auto& a : spec_.axes)
      for (const auto& k : a.keys) check_used(k, a.line, "[axes]");
    for (const auto& v : spec_.variants)
      for (const auto& s : v.overrides)
        if (defined.count(s.key)) check_used(s.key, s.line, "[variants." + v.name + "]");
    if (overlay && c.config.empty())
      for (const auto* s : knobs)
        if (s->key.rfind("overlay.", 0) == 0)
          fail(s->line, "", s->key,
               "an overlay needs [runner] config = \"<base TOML file>\" to be merged into");
    if (!c.config.empty() && !used.count("config"))
      fail(c.config.line, "[runner]", "config",
           "no command is pointed at the merged copy: use {config} in setup or run (e.g. "
           "--config {config})");
  }

  std::string file_;
  ExperimentSpec spec_;
  std::set<std::string> axis_keys_;
};

}  // namespace

ExperimentSpec parse_experiment_toml(std::string_view text, const std::string& source_name) {
  return Parser(source_name).parse(text, std::filesystem::path(source_name).stem().string());
}

ExperimentSpec parse_experiment_file(const std::filesystem::path& file) {
  return parse_experiment_toml(io::read_input_file(file, "experiment file", io::kMaxTomlBytes), file.string());
}

}  // namespace prooflab::harness
