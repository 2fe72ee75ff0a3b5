// "tiny": y = x³ + x + 5 with y public — three constraints, for fast tests of everything
// downstream of synthesis. The partition seed picks x = seed + 3, so seed 0 is the textbook
// x = 3, y = 35.
#pragma once

#include "core/circuits/circuit.hpp"

namespace prooflab::circuits {

class TinyCircuit final : public Circuit {
 public:
  explicit TinyCircuit(std::uint64_t partition_seed);

  std::string name() const override { return "tiny"; }
  std::size_t num_public_inputs() const override { return 1; }
  void synthesize(r1cs::ConstraintSystem& cs) const override;
  std::uint64_t size() const override { return 5; }
  std::string describe() const override { return "tiny: y = x^3 + x + 5, 3 constraints"; }

  const field::Fr& x() const { return x_; }
  const field::Fr& y() const { return y_; }

 private:
  field::Fr x_, y_;
};

}  // namespace prooflab::circuits
