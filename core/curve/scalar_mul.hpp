// Scalar multiplication for single points (keys, tests, setup of small objects). Many-point
// work goes through core/msm; fixed-base tables through core/groth16.
#pragma once

#include "core/curve/jacobian.hpp"
#include "core/field/bigint.hpp"
#include "core/field/fr.hpp"

namespace prooflab::curve {

// Left-to-right double-and-add over the bits of a canonical non-negative integer.
template <class Curve, std::size_t M>
Jacobian<Curve> scalar_mul(const Jacobian<Curve>& p, const field::BigInt<M>& k) {
  auto acc = Jacobian<Curve>::infinity();
  for (std::size_t i = field::bigint_num_bits(k); i-- > 0;) {
    acc = acc.dbl();
    if (field::bigint_bit(k, i)) acc = acc.add(p);
  }
  return acc;
}

template <class Curve>
Jacobian<Curve> scalar_mul(const Jacobian<Curve>& p, const field::Fr& k) {
  return scalar_mul(p, k.to_canonical());
}

// Whether r·P = O: the definition of subgroup membership, used by the tests to check the
// fast endomorphism-based tests of g1.hpp / g2.hpp.
template <class Curve>
bool is_torsion_free_by_order(const Jacobian<Curve>& p) {
  return scalar_mul(p, field::FrParams::kModulus).is_infinity();
}

}  // namespace prooflab::curve
