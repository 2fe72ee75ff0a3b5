// "porep-like": a stand-in for one partition of Filecoin's PoRep C2 circuit, with its
// character (bit-heavy SHA-256 labelling dominating, Poseidon commitments around it, a
// handful of public inputs) at any size from 2^10 to 2^27 constraints.
//
// Structure, for C challenges in a binary Poseidon tree of depth D:
//   inputs    ONE, replica_id, one challenge index per challenge, comm_r  (C + 3)
//   replica   replica_id unpacked into 254 bits (booleanity) and re-packed (= the input)
//   per challenge i (the "challenge i" scope):
//     node     D index bits (booleanity), packed = the challenge's input
//     label    a chain of blocks_i SHA-256 compressions from the constant IV over
//              replica_id || node index || zeros, then 2 parent labels (512 allocated bits)
//              per further block; the first 254 bits of the state packed into a field
//              element ("labelling", like the PoRep's SHA-256 labelling of a node from its
//              parents' labels)
//     column   if columns_i > 0: a Poseidon chain over columns_i allocated field elements
//              and leaf = Poseidon(label, column digest); else leaf = label
//   per challenge: Merkle inclusion of the leaf at its index (238 per level), root = comm_r
//   padding   booleanity-constrained bits up to the target
// The layout for a target: C = clamp(target / 58,000, 1, 18) (the real partition has 18,
// reached at 2^20), D from 2 % of the target (at least log2(C) + 1, at most 30), one block
// per challenge, further blocks while the structure stays within 97 % of the target, one
// last block of as many rounds as still fit (on the last challenge), then column elements
// (237 constraints each) for what is left (less than one round). So SHA-256 is ~97 % of the
// constraints and Poseidon ~2-3 %, as in the real partition (SHA-256 labelling and comm_d
// paths dominate; Poseidon column hashes and comm_c/comm_r_last paths are a few %). Below about
// 2^15, where one full block does not fit, the block runs the most rounds that fit (reduced-round
// SHA-256: the same gadget, fewer rounds) and columns fill the rest; padding is then below one
// column plus one round (at most ~18 % at 2^10, under 1 % from 2^14).
#pragma once

#include <cstdint>
#include <vector>

#include "core/circuits/circuit.hpp"

namespace prooflab::circuits {

struct PorepLikeLayout {
  unsigned challenges = 1;
  unsigned tree_depth = 1;
  unsigned sha_rounds = 64;
  std::vector<unsigned> sha_blocks;  // per challenge, at least 1
  std::vector<unsigned> columns;     // per challenge
  unsigned tail_rounds = 0;          // rounds of one more block on the last challenge (0: none)
  std::uint64_t structure_size = 0;  // constraints + inputs before padding

  std::uint64_t total_blocks() const;
  std::uint64_t total_columns() const;
};

class PorepLikeCircuit final : public Circuit {
 public:
  static constexpr std::uint64_t kMinTarget = 1024;
  static constexpr std::uint64_t kMaxTarget = std::uint64_t{1} << 27;
  static constexpr unsigned kMaxChallenges = 18;
  // One challenge per this many constraints (up to 18): each holds at least two full
  // SHA-256 blocks and its Merkle path, so full 64-round blocks are used from ~2^15 up.
  static constexpr std::uint64_t kConstraintsPerChallenge = 58'000;
  static constexpr double kShaShare = 0.97;
  static constexpr double kMerkleShare = 0.02;

  PorepLikeCircuit(std::uint64_t target_constraints, std::uint64_t partition_seed);

  std::string name() const override { return "porep-like"; }
  std::size_t num_public_inputs() const override { return layout_.challenges + 2; }
  void synthesize(r1cs::ConstraintSystem& cs) const override;
  std::uint64_t size() const override { return target_; }
  std::string describe() const override;

  const PorepLikeLayout& layout() const { return layout_; }
  static PorepLikeLayout layout_for(std::uint64_t target_constraints);
  // The structure alone, without padding.
  static void build(r1cs::ConstraintSystem& cs, const PorepLikeLayout& layout,
                    std::uint64_t partition_seed);

 private:
  std::uint64_t target_;
  std::uint64_t seed_;
  PorepLikeLayout layout_;
};

}  // namespace prooflab::circuits
