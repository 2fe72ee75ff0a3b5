#include "harness/experiment_spec.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "core/io/input_file.hpp"
#include "harness/directory_names.hpp"

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
  const nlohmann::json j = cfg.to_json();
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return "";
  if (it->is_string()) return it->get<std::string>();
  if (it->is_boolean()) return it->get<bool>() ? "on" : "off";
  return it->dump();
}

std::string canonical_value(const std::string& key, const std::string& value) {
  engine::EngineConfig scratch;
  scratch.set(key, value);
  return config_value_text(scratch, key);
}

namespace {

using Entry = std::pair<const toml::key*, const toml::node*>;

int line_of(const toml::source_region& r) { return static_cast<int>(r.begin.line); }

// toml++ keeps a table's keys sorted; experiments need the order of the file (axes nest in
// declaration order, variants are listed as declared).
std::vector<Entry> in_file_order(const toml::table& table) {
  std::vector<Entry> entries;
  for (const auto& [key, node] : table) entries.emplace_back(&key, &node);
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    const auto& ra = a.first->source().begin;
    const auto& rb = b.first->source().begin;
    return std::tie(ra.line, ra.column) < std::tie(rb.line, rb.column);
  });
  return entries;
}

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
      if (k == "experiment" || k == "base" || k == "axes" || k == "variants") {
        if (!node->is_table()) fail(line_of(key->source()), "", k, "must be a table ([" + k + "])");
      } else if (k == "exclude") {
        if (!node->is_array())
          fail(line_of(key->source()), "", k, "must be an array of tables ([[exclude]])");
      } else {
        fail(line_of(key->source()), "", k,
             "unknown top-level entry (an experiment file has [experiment], [base], [axes], "
             "[variants] and [[exclude]])");
      }
    }
    // Fixed order whatever the file's: axes before variants (a variant may not set an axis
    // key) and both before exclusions (which name axis values and variants).
    if (const auto* t = root["experiment"].as_table()) parse_experiment(*t);
    if (!is_safe_name(spec_.name))
      fail(0, "[experiment]", "name",
           "'" + spec_.name + "' cannot be a directory name (use letters, digits, . _ + -)");
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
    return std::move(spec_);
  }

 private:
  [[noreturn]] void fail(int line, const std::string& section, const std::string& key,
                         const std::string& message) const {
    throw ExperimentFileError(file_, line, section, key, message);
  }

  // Validates `value` for engine key `key` on a scratch config.
  std::string checked_value(const std::string& section, const std::string& key,
                            const toml::node& node, int line) const {
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
      if (node->is_table() || node->is_array())
        fail(line, "[base]", k, "must be a single value (lists of values belong in [axes])");
      const std::string value = checked_value("[base]", k, *node, line);
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
          canon.push_back(canonical_value(axis.keys[i], point[i]));
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
        const std::string canon = canonical_value(s.key, s.value);
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
          const std::string canon = canonical_value(k, value);
          std::vector<std::string> occurring;
          bool found = false;
          for (const auto& point : axis->points) {
            occurring.push_back(point[index]);
            found = found || canonical_value(k, point[index]) == canon;
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
