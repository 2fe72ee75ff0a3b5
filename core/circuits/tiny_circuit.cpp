#include "core/circuits/tiny_circuit.hpp"

namespace prooflab::circuits {

using field::Fr;
using r1cs::LinearCombination;
using r1cs::Variable;

TinyCircuit::TinyCircuit(std::uint64_t partition_seed)
    : x_(Fr::from_u64(partition_seed) + Fr::from_u64(3)),
      y_(x_.square() * x_ + x_ + Fr::from_u64(5)) {}

void TinyCircuit::synthesize(r1cs::ConstraintSystem& cs) const {
  r1cs::Scope scope(cs, "tiny");
  const Variable y = cs.alloc_input(y_);
  const Variable x = cs.alloc_aux(x_);
  const Fr x2v = x_.square();
  const Variable x2 = cs.alloc_aux(x2v);
  const Variable x3 = cs.alloc_aux(x2v * x_);
  cs.enforce(x, x, x2, "x^2");
  cs.enforce(x2, x, x3, "x^3");
  cs.enforce(LinearCombination(x3) + x + r1cs::term(Fr::from_u64(5), Variable::one()),
             Variable::one(), y, "y = x^3 + x + 5");
}

}  // namespace prooflab::circuits
