#include "core/circuits/multieq.hpp"

#include <array>
#include <cassert>

namespace prooflab::circuits {

const Fr& MultiEq::power_of_two(std::size_t k) {
  static const std::array<Fr, 256> table = [] {
    std::array<Fr, 256> t;
    t[0] = Fr::one();
    for (std::size_t i = 1; i < t.size(); ++i) t[i] = t[i - 1].dbl();
    return t;
  }();
  assert(k < 256);
  return table[k];
}

void MultiEq::flush() {
  if (bits_used_ == 0) return;
  cs_.enforce(lhs_, LinearCombination(r1cs::Variable::one()), rhs_, Annotation("multieq {}", ops_));
  lhs_.clear();
  rhs_.clear();
  bits_used_ = 0;
  ++ops_;
}

}  // namespace prooflab::circuits
