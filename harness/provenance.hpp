// Where a run came from: the command line and the commit the binary was built from, for
// run.json.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace prooflab::harness {

// {"command", "git_commit", "git_dirty"}: the commit this binary was built from, as
// `prooflab --version` names it (not the state of a checkout at run time: a binary carried to
// another machine, or run after a checkout moved on, still names its own commit).
nlohmann::json provenance();

// The command line of this process as typed.
void remember_command_line(int argc, char** argv);
// For a caller that is not a command line (the Python module): run.json's "command" says how
// the run was started (e.g. "python: prooflab.cli([...])"), and the commands a run suggests
// next name `program`.
void remember_command(const std::string& command, const std::string& program = "prooflab");

// The program as the user typed it (argv[0]), for the commands a run suggests next: it works
// from where the user stands. "prooflab" before remember_command_line.
std::string invoked_program();

}  // namespace prooflab::harness
