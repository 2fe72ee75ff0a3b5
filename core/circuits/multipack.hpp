// Moving between bits and field elements: packing Booleans into an aux Num or into public
// inputs (254 bits per input, one constraint each, as bellperson's multipack does for the
// PoRep's public inputs), and allocating the bits of a value.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/circuits/boolean.hpp"
#include "core/circuits/num.hpp"

namespace prooflab::circuits {

// Bits per packed field element: the capacity of Fr.
inline constexpr std::size_t kPackBits = 254;

// Σ bits[i]·2^i as a field element (bits[0] least significant), at most 254 bits.
Fr pack_value(std::span<const Boolean> bits_le);

// A new aux variable equal to Σ bits[i]·2^i: one constraint.
Num pack_bits(ConstraintSystem& cs, std::span<const Boolean> bits_le, Annotation annotation);

// Public inputs holding the bits 254 at a time: one input and one constraint per chunk.
std::vector<Variable> pack_into_inputs(ConstraintSystem& cs, std::span<const Boolean> bits_le,
                                       Annotation annotation);

// Constrains Σ bits[i]·2^i = target: one constraint.
void enforce_packs_to(ConstraintSystem& cs, std::span<const Boolean> bits_le, Variable target,
                      Annotation annotation);

// The n low bits of a value as allocated Booleans (n constraints), least significant first.
std::vector<Boolean> alloc_bits_le(ConstraintSystem& cs, const Fr& value, std::size_t n,
                                   Annotation annotation);
std::vector<Boolean> alloc_bits_le(ConstraintSystem& cs, std::uint64_t value, std::size_t n,
                                   Annotation annotation);

}  // namespace prooflab::circuits
