#include "harness/provenance.hpp"

#include <string>

#include "harness/version.hpp"

namespace prooflab::harness {
namespace {

std::string g_command;
std::string g_program = "prooflab";

}  // namespace

void remember_command_line(int argc, char** argv) {
  g_command.clear();
  for (int i = 0; i < argc; ++i) g_command += (i ? " " : "") + std::string(argv[i]);
  if (argc > 0) g_program = argv[0];
}

void remember_command(const std::string& command, const std::string& program) {
  g_command = command;
  g_program = program;
}

std::string invoked_program() { return g_program; }

nlohmann::json provenance() {
  return {{"command", g_command}, {"git_commit", build_commit()}, {"git_dirty", built_dirty()}};
}

}  // namespace prooflab::harness
