#include "harness/provenance.hpp"

#include <cstdio>
#include <string>

namespace prooflab::harness {
namespace {

std::string g_command;
std::string g_program = "prooflab";

std::string run(const std::string& cmd) {
  std::string out;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[256];
    while (std::fgets(buf, sizeof buf, p)) out += buf;
    if (pclose(p) != 0) return {};
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

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
  const std::string src = PROOFLAB_SOURCE_DIR;
  const std::string commit = run("git -C '" + src + "' rev-parse HEAD 2>/dev/null");
  const std::string status = run("git -C '" + src + "' status --porcelain --untracked-files=no 2>/dev/null");
  return {{"command", g_command},
          {"git_commit", commit.empty() ? "unknown" : commit},
          {"git_dirty", !status.empty()}};
}

}  // namespace prooflab::harness
