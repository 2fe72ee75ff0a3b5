// `prooflab knobs`: the engine's table of knobs (core/engine/knobs.hpp) — name, type and
// range, default, doc and the cuzk equivalent — as text, as the markdown table of
// docs/engine.md ("Knobs"), as JSON, or as the bare names.
#include <iostream>
#include <memory>
#include <string>

#include "core/engine/knobs.hpp"
#include "harness/commands/commands.hpp"

namespace prooflab::harness {
namespace {

// A markdown table cell: a '|' in the text would end the cell.
std::string cell(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

void print_markdown(std::ostream& out) {
  const engine::EngineConfig defaults;
  out << "| key | type: accepted | default | meaning | cuzk equivalent | cell id prefix |\n"
         "|---|---|---|---|---|---|\n";
  for (const auto& k : engine::knobs())
    out << "| " << k.name << " | " << k.kind_name() << ": " << cell(k.accepted()) << " | "
        << cell(k.text(defaults)) << " | " << cell(k.doc) << " | " << cell(k.cuzk) << " | "
        << (k.cell_name_prefix().empty() ? "(the value alone)" : cell(k.cell_name_prefix()))
        << " |\n";
}

void print_text(std::ostream& out) {
  const engine::EngineConfig defaults;
  for (const auto& k : engine::knobs())
    out << k.name << " (" << k.kind_name() << ": " << k.accepted() << "; default "
        << k.text(defaults) << ")\n    " << k.doc << "\n    cuzk: " << k.cuzk
        << "\n    cell id: " << k.cell_name_prefix() << "<value>\n";
}

}  // namespace

void add_knobs_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "knobs", "List the engine's knobs: type and range, default, meaning, cuzk equivalent");
  auto format = std::make_shared<std::string>("text");
  cmd->add_option("--format", *format,
                  "text; markdown (docs/engine.md's table); json (one object per knob); names "
                  "(one key per line)")
      ->capture_default_str()
      ->check(CLI::IsMember({"text", "markdown", "json", "names"}));
  cmd->callback([format] {
    if (*format == "markdown") {
      print_markdown(std::cout);
    } else if (*format == "json") {
      std::cout << engine::knob_table_json().dump(2) << "\n";
    } else if (*format == "names") {
      for (const auto& k : engine::knobs()) std::cout << k.name << "\n";
    } else {
      print_text(std::cout);
    }
  });
}

}  // namespace prooflab::harness
