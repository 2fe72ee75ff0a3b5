// Filling a circuit up to its target size with the cheapest realistic constraint: a bit
// (drawn from the partition's stream) and its booleanity (1 - x)·x = 0.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "core/circuits/boolean.hpp"
#include "core/circuits/witness_rng.hpp"

namespace prooflab::circuits {

// The size measure of the circuits: constraints plus inputs (ONE included).
inline std::uint64_t total_size(const ConstraintSystem& cs) {
  return cs.num_constraints() + cs.num_inputs();
}

// Pads until total_size(cs) - start == target. A circuit whose structure already exceeds
// its target is a bug in its layout (std::logic_error).
inline void pad_to_target(ConstraintSystem& cs, std::uint64_t start, std::uint64_t target,
                          WitnessRng& rng, const char* circuit) {
  const std::uint64_t used = total_size(cs) - start;
  if (used > target)
    throw std::logic_error(std::string(circuit) + ": the structure uses " + std::to_string(used) +
                           " constraints + inputs, above the target " + std::to_string(target));
  r1cs::Scope scope(cs, "padding");
  for (std::uint64_t i = used; i < target; ++i) Boolean::alloc(cs, rng.next_bit(), "bit");
}

}  // namespace prooflab::circuits
