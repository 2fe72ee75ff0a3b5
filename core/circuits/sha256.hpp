// The SHA-256 compression function as a circuit, structured as bellman's gadget (the one
// bellperson and the Filecoin proofs use): message schedule and rounds over UInt32 words,
// ch/maj bitwise, modular additions deferred so that h + S1 + ch + K + w + d is one addmany
// of six operands, and all addition equalities batched through one MultiEq. One block with
// a constant IV costs 25,840 constraints (+512 when its input bits are allocated).
#pragma once

#include <array>
#include <span>

#include "core/circuits/boolean.hpp"
#include "core/circuits/uint32.hpp"

namespace prooflab::circuits {

// The IV as constants (what makes the first rounds of a first block cheaper).
std::array<UInt32, 8> sha256_iv();

// state' = compress(state, block). block[0] is the first (most significant) bit of the
// block, as in FIPS 180-4. rounds < 64 gives the reduced-round variant (the message schedule
// is then computed only as far as it is used); porep-like uses it only at sizes too small
// for one full block.
std::array<UInt32, 8> sha256_compression(ConstraintSystem& cs, std::span<const Boolean, 512> block,
                                         std::span<const UInt32, 8> state, unsigned rounds = 64);

// The 256 bits of a state, big-endian word by word (the digest's bit order).
std::array<Boolean, 256> sha256_state_bits_be(std::span<const UInt32, 8> state);

}  // namespace prooflab::circuits
