#include "core/r1cs/satisfiability.hpp"

#include <stdexcept>

#include "core/r1cs/evaluate.hpp"

namespace prooflab::r1cs {

std::string UnsatisfiedConstraint::message() const {
  std::string s = "constraint " + std::to_string(index);
  if (!annotation.empty()) s += " (" + annotation + ")";
  return s + " is not satisfied: a·b != c";
}

std::optional<UnsatisfiedConstraint> first_unsatisfied(const R1cs& r1cs, const Witness& w) {
  check_witness_fits(r1cs, w, "first_unsatisfied");
  for (std::size_t r = 0; r < r1cs.num_constraints; ++r) {
    const field::Fr a = evaluate_row(r1cs.a, w, r);
    const field::Fr b = evaluate_row(r1cs.b, w, r);
    const field::Fr c = evaluate_row(r1cs.c, w, r);
    if (!(a * b == c)) return UnsatisfiedConstraint{r, r1cs.annotations.describe(r), a, b, c};
  }
  return std::nullopt;
}

void require_satisfied(const R1cs& r1cs, const Witness& w) {
  if (auto bad = first_unsatisfied(r1cs, w)) throw std::runtime_error(bad->message());
}

}  // namespace prooflab::r1cs
