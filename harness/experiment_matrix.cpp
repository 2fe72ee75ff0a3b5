#include "harness/experiment_matrix.hpp"

#include <algorithm>
#include <cctype>
#include <map>

namespace prooflab::harness {

std::string cell_token(const std::string& key, const std::string& value) {
  // Short prefixes for the knobs that usually vary; enum knobs show their value alone (their
  // values do not collide); anything else reads "key-value".
  static const std::map<std::string, std::string> prefix = {{"count", "c"},
                                                            {"concurrency", "j"},
                                                            {"constraints", "n"},
                                                            {"partitions", "p"},
                                                            {"gpu_workers_per_device", "gw"},
                                                            {"gpu_threads", "gt"},
                                                            {"synth_threads", "st"},
                                                            {"device_threads", "dt"},
                                                            {"devices", "dev"},
                                                            {"vram_limit", "vram"},
                                                            {"host_mem_budget", "hmem"},
                                                            {"seed", "seed"},
                                                            {"circuit", ""},
                                                            {"backend", ""},
                                                            {"lock_policy", ""},
                                                            {"dealloc_policy", ""}};
  std::string v = value;
  for (char& ch : v) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (!(std::isalnum(c) || ch == '.' || ch == '_' || ch == '+' || ch == '-')) ch = '-';
  }
  const auto it = prefix.find(key);
  return (it != prefix.end() ? it->second : key + "-") + v;
}

namespace {

bool matches(const Exclusion& ex, const Cell& cell) {
  for (const auto& entry : ex.match) {
    const std::string& key = entry.first;
    const std::vector<std::string>& values = entry.second;
    const auto it = std::find_if(cell.values.begin(), cell.values.end(),
                                 [&](const auto& kv) { return kv.first == key; });
    if (it == cell.values.end()) return false;
    const std::string have = canonical_value(key, it->second);
    if (std::none_of(values.begin(), values.end(),
                     [&](const std::string& v) { return canonical_value(key, v) == have; }))
      return false;
  }
  return true;
}

bool excludes_variant(const Exclusion& ex, const std::string& variant) {
  return ex.variants.empty() ||
         std::find(ex.variants.begin(), ex.variants.end(), variant) != ex.variants.end();
}

}  // namespace

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
        if (matches(spec.exclusions[e], cell) &&
            excludes_variant(spec.exclusions[e], spec.variants[v].name)) {
          ++hits[e];
          excluded = true;
        }
      }
      if (excluded) continue;
      Arm arm{m.cells.size(), v, spec.base};
      for (const auto& [key, value] : cell.values) arm.config.set(key, value);
      for (const auto& s : spec.variants[v].overrides) arm.config.set(s.key, s.value);
      try {
        arm.config.validate();
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
