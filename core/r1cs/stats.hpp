// The figures that compare a benchmark circuit with the real PoRep partition (130.3M
// constraints, 328 inputs, a_aux density 99.7 %, b_aux 25.4 %, b_input 1/328, most aux
// values 0 or 1): they decide how much work the MSM stages do and how it splits into
// batch additions (scalars equal to 1) and tail MSMs (the "significant" scalars).
#pragma once

#include <cstddef>
#include <string>

#include "core/r1cs/r1cs.hpp"
#include "core/r1cs/witness.hpp"

namespace prooflab::r1cs {

struct R1csStats {
  std::size_t num_constraints = 0;
  std::size_t num_inputs = 0;  // including ONE
  std::size_t num_aux = 0;
  std::size_t nnz_a = 0, nnz_b = 0, nnz_c = 0;
  std::size_t distinct_coefficients = 0;
  std::size_t a_aux_dense = 0, b_aux_dense = 0, b_input_dense = 0;
  double a_aux_density = 0, b_aux_density = 0, b_input_density = 0;  // fractions in [0, 1]
  // The aux assignment: how many values are 0, 1, or anything else ("significant").
  std::size_t aux_zero = 0, aux_one = 0, aux_significant = 0;
  double aux_zero_fraction = 0, aux_one_fraction = 0, aux_significant_fraction = 0;
  // The same split restricted to the aux variables dense in A and in B (what the A and B
  // MSMs see after density filtering).
  std::size_t a_aux_significant = 0, b_aux_significant = 0;
  std::size_t matrix_bytes = 0;  // index arrays of A, B, C
};

R1csStats stats(const R1cs& r1cs, const Witness& w);

// A few aligned lines, for logs and test output.
std::string format_stats(const R1csStats& s);

}  // namespace prooflab::r1cs
