// Checking an assignment against a compiled system, row by row, with the failing row named.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "core/field/fr.hpp"
#include "core/r1cs/r1cs.hpp"
#include "core/r1cs/witness.hpp"

namespace prooflab::r1cs {

struct UnsatisfiedConstraint {
  std::size_t index = 0;
  std::string annotation;  // "" when the system was compiled without annotations
  field::Fr a, b, c;       // the row's evaluations: a·b != c

  // "constraint 1234 (sha256/round 12/maj) is not satisfied: a·b != c"
  std::string message() const;
};

// The first row with (A·w)(B·w) != C·w, or nullopt when w satisfies every row. Throws
// std::invalid_argument when w does not fit the system.
std::optional<UnsatisfiedConstraint> first_unsatisfied(const R1cs& r1cs, const Witness& w);

// Throws std::runtime_error carrying UnsatisfiedConstraint::message() when a row fails.
void require_satisfied(const R1cs& r1cs, const Witness& w);

}  // namespace prooflab::r1cs
