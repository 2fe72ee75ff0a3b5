// A compiled rank-1 constraint system: (A·w) ∘ (B·w) = C·w for the assignment
// w = [inputs..., aux...]. Built once per circuit shape from a constraint system recorded in
// kShape (or kBoth) mode; the witness of each partition comes from a kWitness run.
//
// The Groth16 reduction adds one row per input (input_i · 0 = 0, bellperson's "input
// consistency" rows) after the circuit's rows; they are not part of this structure (see
// evaluate_all's `length` argument, which appends them to a).
#pragma once

#include <cstddef>

#include "core/r1cs/annotation.hpp"
#include "core/r1cs/constraint_system.hpp"
#include "core/r1cs/csr_matrix.hpp"
#include "core/r1cs/density.hpp"

namespace prooflab::r1cs {

struct R1cs {
  std::size_t num_inputs = 0;  // including ONE
  std::size_t num_aux = 0;
  std::size_t num_constraints = 0;
  CsrMatrix a, b, c;
  DensityBitmap a_aux_density;    // over aux variables
  DensityBitmap b_input_density;  // over inputs (ONE included)
  DensityBitmap b_aux_density;    // over aux variables
  AnnotationTable annotations;    // empty when compiled without them

  std::size_t num_variables() const { return num_inputs + num_aux; }
  // The shape without the annotations (which are names, not structure).
  bool same_shape(const R1cs& o) const {
    return num_inputs == o.num_inputs && num_aux == o.num_aux &&
           num_constraints == o.num_constraints && a == o.a && b == o.b && c == o.c &&
           a_aux_density == o.a_aux_density && b_input_density == o.b_input_density &&
           b_aux_density == o.b_aux_density;
  }
  friend bool operator==(const R1cs&, const R1cs&) = default;
};

struct CompileOptions {
  // 8 bytes per constraint; drop them for PoRep-scale shapes where memory is tight.
  bool keep_annotations = true;
};

// From a system in kShape or kBoth mode (std::invalid_argument for kWitness, which records
// no constraints). The rvalue overload moves the recorded arrays instead of copying them.
R1cs compile(const ConstraintSystem& cs, CompileOptions options = {});
R1cs compile(ConstraintSystem&& cs, CompileOptions options = {});

}  // namespace prooflab::r1cs
