#include <string>
#include <vector>

#include "harness/commands/command_line.hpp"
#include "harness/provenance.hpp"

int main(int argc, char** argv) {
  prooflab::harness::remember_command_line(argc, argv);
  return prooflab::harness::run_command_line(std::vector<std::string>(argv + 1, argv + argc));
}
