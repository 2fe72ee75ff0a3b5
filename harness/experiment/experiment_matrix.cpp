#include "harness/experiment/experiment_matrix.hpp"

#include <algorithm>
#include <cctype>
#include <map>

#include "core/engine/knobs.hpp"
#include "harness/experiment/command_template.hpp"

namespace prooflab::harness {

std::string cell_token(const std::string& key, const std::string& value) {
  std::string v = value;
  for (char& ch : v) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (!(std::isalnum(c) || ch == '.' || ch == '_' || ch == '+' || ch == '-')) ch = '-';
  }
  // The knob's prefix from the table (a command runner's own knob reads "key-value").
  const engine::Knob* knob = engine::find_knob(key);
  return (knob != nullptr ? knob->cell_name_prefix() : key + "-") + v;
}

namespace {

bool matches(const ExperimentSpec& spec, const Exclusion& ex, const Cell& cell) {
  for (const auto& entry : ex.match) {
    const std::string& key = entry.first;
    const std::vector<std::string>& values = entry.second;
    const auto it = std::find_if(cell.values.begin(), cell.values.end(),
                                 [&](const auto& kv) { return kv.first == key; });
    if (it == cell.values.end()) return false;
    const std::string have = knob_canonical(spec, key, it->second);
    if (std::none_of(values.begin(), values.end(),
                     [&](const std::string& v) { return knob_canonical(spec, key, v) == have; }))
      return false;
  }
  return true;
}

bool excludes_variant(const Exclusion& ex, const std::string& variant) {
  return ex.variants.empty() ||
         std::find(ex.variants.begin(), ex.variants.end(), variant) != ex.variants.end();
}

void set_knob(Arm& arm, const std::string& key, const std::string& value) {
  for (auto& kv : arm.knobs)
    if (kv.first == key) {
      kv.second = value;
      return;
    }
  arm.knobs.emplace_back(key, value);
}

// A command runner's arm: base knobs, the cell's axis values, the variant's; then every
// template must have a value for each of its placeholders, and concurrency <= count.
void command_arm_knobs(const ExperimentSpec& spec, const Cell& cell, const Variant& variant,
                       Arm& arm) {
  for (const auto& s : spec.base_knobs) set_knob(arm, s.key, s.value);
  for (const auto& [key, value] : cell.values) set_knob(arm, key, value);
  for (const auto& s : variant.overrides) set_knob(arm, s.key, s.value);
  const std::string where = "cell " + cell.id + ", variant " + variant.name;
  const std::string count = arm.value("count"), concurrency = arm.value("concurrency");
  if (count.empty() || concurrency.empty())
    throw ExperimentFileError(spec.source, spec.command.line, where, count.empty() ? "count" : "concurrency",
                              "missing: a command runner's runs need count and concurrency "
                              "(in [base] or on an axis)");
  if (std::stoll(concurrency) > std::stoll(count))
    throw engine::ConfigError("concurrency (" + concurrency + ") must not exceed count (" + count + ")");
  std::map<std::string, std::string> values;
  for (const auto& name : builtin_placeholders(spec.command)) values[name] = "";
  for (const auto& [key, value] : arm.knobs)
    if (key.rfind("env.", 0) != 0 && key.rfind("overlay.", 0) != 0) values[key] = value;
  auto check = [&](const std::string& text, const std::string& key, int line) {
    try {
      substitute(text, values);
    } catch (const TemplateError& e) {
      throw ExperimentFileError(spec.source, line, where, key,
                                e.what() + std::string(" (set ") + e.placeholder() +
                                    " in [base], on an axis or in this variant)");
    }
  };
  for (const auto* t : spec.command.templates()) check(t->text, t->key, t->line);
  auto line_of_knob = [&](const std::string& key) {
    for (const auto& s : variant.overrides)
      if (s.key == key) return s.line;
    for (const auto& s : spec.base_knobs)
      if (s.key == key) return s.line;
    return 0;
  };
  for (const auto& [key, value] : arm.knobs)
    if (key.rfind("env.", 0) == 0 || (key.rfind("overlay.", 0) == 0 && !value.empty() && value.front() == '"'))
      check(value, key, line_of_knob(key));
}

}  // namespace

nlohmann::json Arm::recorded_config() const {
  if (!external) return config.to_json();
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [key, value] : knobs) {
    if (key == "count" || key == "concurrency")
      j[key] = std::stoll(value);
    else
      j[key] = value;
  }
  return j;
}

std::string Arm::value(const std::string& key) const {
  if (!external) return config_value_text(config, key);
  for (const auto& [k, v] : knobs)
    if (k == key) return v;
  return "";
}

ExperimentMatrix expand_matrix(const ExperimentSpec& spec) {
  // The product, first axis slowest.
  std::vector<Cell> product(1);
  for (const auto& axis : spec.axes) {
    std::vector<Cell> next;
    for (const auto& cell : product) {
      for (const auto& point : axis.points) {
        Cell c = cell;
        for (std::size_t k = 0; k < axis.keys.size(); ++k)
          c.values.emplace_back(axis.keys[k], point[k]);
        next.push_back(std::move(c));
      }
    }
    product = std::move(next);
  }
  std::map<std::string, std::size_t> ids;
  for (auto& cell : product) {
    for (const auto& [key, value] : cell.values)
      cell.id += (cell.id.empty() ? "" : "_") + cell_token(key, value);
    if (cell.id.empty()) cell.id = "base";
    if (!ids.emplace(cell.id, 0).second)
      throw ExperimentFileError(spec.source, spec.axes_line, "[axes]", "",
                                "two cells get the same id '" + cell.id + "'");
  }

  ExperimentMatrix m;
  m.product_arms = product.size() * spec.variants.size();
  std::vector<std::size_t> hits(spec.exclusions.size(), 0);
  for (const auto& cell : product) {
    std::vector<Arm> arms;
    for (std::size_t v = 0; v < spec.variants.size(); ++v) {
      bool excluded = false;
      for (std::size_t e = 0; e < spec.exclusions.size(); ++e) {
        if (matches(spec, spec.exclusions[e], cell) &&
            excludes_variant(spec.exclusions[e], spec.variants[v].name)) {
          ++hits[e];
          excluded = true;
        }
      }
      if (excluded) continue;
      Arm arm{m.cells.size(), v, spec.base, {}, spec.command.enabled};
      try {
        if (arm.external) {
          command_arm_knobs(spec, cell, spec.variants[v], arm);
        } else {
          for (const auto& [key, value] : cell.values) arm.config.set(key, value);
          for (const auto& s : spec.variants[v].overrides) arm.config.set(s.key, s.value);
          arm.config.validate();
        }
      } catch (const engine::ConfigError& e) {
        throw ExperimentFileError(
            spec.source, spec.axes_line, "cell " + cell.id + ", variant " + spec.variants[v].name,
            "",
            std::string(e.what()) +
                " (drop such cells with an [[exclude]] naming their axis values)");
      }
      arms.push_back(std::move(arm));
    }
    if (arms.empty()) continue;
    m.cells.push_back(cell);
    for (auto& a : arms) m.arms.push_back(std::move(a));
  }
  for (std::size_t e = 0; e < spec.exclusions.size(); ++e) {
    if (hits[e] == 0)
      throw ExperimentFileError(spec.source, spec.exclusions[e].line, "[[exclude]]", "",
                                "matches no cell of the matrix (its values never occur together)");
  }
  if (m.arms.empty())
    throw ExperimentFileError(spec.source, spec.axes_line, "[[exclude]]", "",
                              "the exclusions leave nothing to run");

  auto add_column = [&](const std::string& key) {
    if (std::find(m.columns.begin(), m.columns.end(), key) == m.columns.end())
      m.columns.push_back(key);
  };
  add_column("count");
  add_column("concurrency");
  for (const auto& axis : spec.axes)
    for (const auto& key : axis.keys) add_column(key);
  for (const auto& variant : spec.variants)
    for (const auto& s : variant.overrides) add_column(s.key);
  return m;
}

}  // namespace prooflab::harness
