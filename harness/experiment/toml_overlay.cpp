#include "harness/experiment/toml_overlay.hpp"

#include <toml++/toml.h>

#include <sstream>

namespace prooflab::harness {

namespace {

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> parts;
  std::stringstream in(path);
  for (std::string part; std::getline(in, part, '.');) parts.push_back(part);
  return parts;
}

}  // namespace

std::string overlay_toml(const std::filesystem::path& base,
                         const std::vector<std::pair<std::string, std::string>>& overlay) {
  toml::table root;
  try {
    root = toml::parse_file(base.string());
  } catch (const toml::parse_error& e) {
    throw OverlayError(
        base.string() + ":" + std::to_string(e.source().begin.line) +
        ": the config overlay's base file does not parse: " + std::string(e.description()));
  }
  for (const auto& [path, literal] : overlay) {
    const auto parts = split_path(path);
    toml::table* table = &root;
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
      toml::node* next = table->get(parts[i]);
      if (!next) next = &table->insert_or_assign(parts[i], toml::table{}).first->second;
      table = next->as_table();
      if (!table)
        throw OverlayError(base.string() + ": overlay key '" + path + "': '" + parts[i] +
                           "' is a value there, not a table");
    }
    toml::table value = toml::parse("v = " + literal);
    table->insert_or_assign(parts.back(), std::move(*value.get("v")));
  }
  std::ostringstream out;
  out << "# " << base.string() << " with prooflab's overlay:";
  for (const auto& [path, literal] : overlay) out << " " << path << " = " << literal << ";";
  out << "\n" << root << "\n";
  return out.str();
}

}  // namespace prooflab::harness
