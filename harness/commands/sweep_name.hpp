// The default name of a `prooflab sweep` experiment (its directory under --out), for the
// command and for the Python module's sweep(), which returns that directory.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace prooflab::harness {

// "sweep-c<c list>-j<j list>[-pairs]", lists joined by '-': sweep-c5-10-j5-10-pairs.
std::string default_sweep_name(const std::vector<std::uint32_t>& c, const std::vector<std::uint32_t>& j,
                               bool pairs);

}  // namespace prooflab::harness
