// What `prooflab --version` and the Python module's prooflab.version() say: the release, the
// commit the binary was built from, the build type and compiler, and which optional parts
// (CUDA backend, embedded Python) the build has.
#pragma once

#include <string>

namespace prooflab::harness {

// Several "name  value" lines, the first "prooflab <release>".
std::string version_text();

// The commit the binary was built from ("unknown" outside a git checkout) and whether the files
// git tracks differed from it then: run.json's git_commit / git_dirty.
std::string build_commit();
bool built_dirty();

}  // namespace prooflab::harness
