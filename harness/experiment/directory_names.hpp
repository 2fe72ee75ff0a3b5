// Names that become directories under --out: experiment, variant and cell names, and run
// ids. They are checked before anything is written, so that no name can climb out of --out
// ("..", an absolute path) or make a name the shell and the analysis disagree on.
#pragma once

#include <string>

namespace prooflab::harness {

// One directory name: [A-Za-z0-9._+-], 1 to 100 characters, not "." or "..".
bool is_safe_name(const std::string& name);

// A run id: one or more safe names joined by '/' (the experiment runner's are
// "<experiment>/<run>"). Throws std::invalid_argument naming the id and what is wrong.
void check_run_id(const std::string& run_id);

}  // namespace prooflab::harness
