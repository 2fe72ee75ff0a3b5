// The whole `prooflab` command line, in-process: main.cpp runs it on argv, the Python module's
// cli() (and its matrix / sweep / regress / trace wrappers) on a list of strings, so a notebook
// gets exactly what the shell gets.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace prooflab::harness {

// A command's exit status without an error message (regress: 1 = a regression, 3 = nothing
// compared): commands throw it instead of calling std::exit, so that an in-process caller
// lives on.
class CommandExit : public std::runtime_error {
 public:
  explicit CommandExit(int status)
      : std::runtime_error("exit status " + std::to_string(status)), status_(status) {}
  int status() const { return status_; }

 private:
  int status_;
};

// Why a command line was refused (CLI11's message: unknown option, bad value, missing
// argument), for callers that want an exception rather than the usage text on stderr.
class CommandLineError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Parses args (without the program name) and runs the subcommand; returns its exit status.
// An error is printed to stderr as `prooflab: error: ...` (status 1) unless rethrow, which
// passes it on: std::exception as it is, a refused command line as CommandLineError.
// --help and --version print and return 0.
int run_command_line(const std::vector<std::string>& args, bool rethrow = false);

}  // namespace prooflab::harness
