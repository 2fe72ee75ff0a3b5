// Inclusion in a binary Poseidon Merkle tree, in circuit and natively.
//
// path_bits[level] is bit `level` of the leaf's index: 1 when the running node is the right
// child. Per level the gadget allocates the sibling, selects (left, right) with one
// constraint — left = cur + bit·(sib - cur), right = cur + sib - left as a combination —
// and hashes: 238 constraints per level. The path bits' booleanity is the caller's.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/circuits/boolean.hpp"
#include "core/circuits/num.hpp"
#include "core/circuits/witness_rng.hpp"

namespace prooflab::circuits {

// The root reached from `leaf` through `siblings` (the caller compares it with a commitment).
Num merkle_root(ConstraintSystem& cs, const Num& leaf, std::span<const Boolean> path_bits,
                std::span<const Fr> siblings);

// The same natively.
Fr merkle_root_native(const Fr& leaf, std::uint64_t index, std::span<const Fr> siblings);

// Paths to a set of leaves of one depth-`depth` tree whose other nodes are pseudo-random
// (drawn from `fill`): every path reaches the same root, as they would in a full tree, at the
// cost of C·depth hashes instead of 2^depth. Positions must be distinct and below 2^depth
// (std::invalid_argument otherwise).
struct SparseMerklePaths {
  Fr root;
  std::vector<std::vector<Fr>> siblings;  // [leaf][level]
};
SparseMerklePaths sparse_merkle_paths(std::span<const std::uint64_t> positions,
                                      std::span<const Fr> leaves, unsigned depth, WitnessRng& fill);

// Distinct pseudo-random positions below 2^depth (count <= 2^depth).
std::vector<std::uint64_t> distinct_positions(std::size_t count, unsigned depth, WitnessRng& rng);

}  // namespace prooflab::circuits
