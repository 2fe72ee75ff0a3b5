// Where things are in a TOML file, for messages that name the line: the line of a node, and a
// table's entries in the order of the file (toml++ keeps a table's keys sorted; experiment
// files need the order they were written in: axes nest in declaration order, variants are
// listed as declared).
#pragma once

#include <toml++/toml.h>

#include <algorithm>
#include <tuple>
#include <utility>
#include <vector>

namespace prooflab::harness {

using TomlEntry = std::pair<const toml::key*, const toml::node*>;

inline int line_of(const toml::source_region& r) { return static_cast<int>(r.begin.line); }

inline std::vector<TomlEntry> in_file_order(const toml::table& table) {
  std::vector<TomlEntry> entries;
  for (const auto& [key, node] : table) entries.emplace_back(&key, &node);
  std::stable_sort(entries.begin(), entries.end(), [](const TomlEntry& a, const TomlEntry& b) {
    const auto& ra = a.first->source().begin;
    const auto& rb = b.first->source().begin;
    return std::tie(ra.line, ra.column) < std::tie(rb.line, rb.column);
  });
  return entries;
}

}  // namespace prooflab::harness
