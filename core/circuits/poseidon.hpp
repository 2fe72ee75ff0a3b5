// The Poseidon permutation and 2-to-1 hash as a circuit (parameters in poseidon_params.hpp).
// Linear layers are free (they act on the Nums' linear combinations); each x^5 S-box costs
// three constraints (x·x = x², x²·x² = x⁴, x⁴·x = x⁵), so a permutation costs
// 3·(8·3 + 55) = 237 constraints, as in Filecoin's arity-2 Poseidon.
#pragma once

#include <array>

#include "core/circuits/num.hpp"

namespace prooflab::circuits {

std::array<Num, 3> poseidon_permutation(ConstraintSystem& cs, std::array<Num, 3> state);
Num poseidon_hash2(ConstraintSystem& cs, const Num& left, const Num& right);

}  // namespace prooflab::circuits
