// Batching of equality constraints between bit-sized quantities (bellman's MultiEq). An
// equality lhs = rhs between values below 2^k is shifted by 2^used and added to a running
// pair of combinations; one constraint lhs·1 = rhs is emitted when the next equality would
// no longer fit in the field's 254-bit capacity. SHA-256's modular additions (35 bits each)
// share constraints this way, about seven per constraint, which is how a compression costs
// 25,840 constraints and not ~26,000. It is also why A is dense in aux at PoRep scale: those
// rows carry every operand bit of seven additions.
#pragma once

#include <cstddef>
#include <exception>

#include "core/r1cs/constraint_system.hpp"

namespace prooflab::circuits {

using field::Fr;
using r1cs::Annotation;
using r1cs::ConstraintSystem;
using r1cs::LinearCombination;

class MultiEq {
 public:
  // BLS12-381 Fr: 255-bit modulus, 254 bits of capacity.
  static constexpr std::size_t kCapacityBits = 254;

  explicit MultiEq(ConstraintSystem& cs) : cs_(cs) {}
  MultiEq(const MultiEq&) = delete;
  MultiEq& operator=(const MultiEq&) = delete;
  // Emits the pending constraint (not while an exception unwinds: the system is abandoned).
  ~MultiEq() noexcept(false) {
    if (std::uncaught_exceptions() == 0) flush();
  }

  ConstraintSystem& cs() { return cs_; }

  // Enforces lhs = rhs for quantities below 2^num_bits. build(lhs, rhs) fills two empty
  // combinations and runs only when the shape is recorded.
  template <class Build>
  void enforce_equal_with(std::size_t num_bits, Build&& build) {
    if (bits_used_ + num_bits >= kCapacityBits) flush();
    if (cs_.records_shape()) {
      LinearCombination lhs, rhs;
      build(lhs, rhs);
      const Fr& shift = power_of_two(bits_used_);
      lhs_.add_scaled(shift, lhs);
      rhs_.add_scaled(shift, rhs);
    }
    bits_used_ += num_bits;
  }

  // The pending equalities as one constraint (lhs)·(ONE) = (rhs).
  void flush();

  static const Fr& power_of_two(std::size_t k);

 private:
  ConstraintSystem& cs_;
  std::size_t bits_used_ = 0;
  std::uint32_t ops_ = 0;
  LinearCombination lhs_, rhs_;
};

}  // namespace prooflab::circuits
