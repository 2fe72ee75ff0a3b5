// "poseidon-merkle": many inclusion paths into one binary Poseidon tree. Each path has an
// allocated leaf, its index bits (booleanity each), 238 constraints per level, and an
// equality with the public root; all index bits are packed into public inputs (254 per
// input). The depth grows with the target (log2(target) - 6, between 4 and 32); the number
// of paths fills the target. Field-element heavy: the opposite of "sha256" for MSM work.
#pragma once

#include <cstdint>

#include "core/circuits/circuit.hpp"

namespace prooflab::circuits {

struct PoseidonMerkleLayout {
  unsigned depth = 4;
  std::uint64_t paths = 1;
};

class PoseidonMerkleCircuit final : public Circuit {
 public:
  static constexpr std::uint64_t kMinTarget = 1024;
  static constexpr std::uint64_t kMaxTarget = std::uint64_t{1} << 28;

  PoseidonMerkleCircuit(std::uint64_t target_constraints, std::uint64_t partition_seed);

  std::string name() const override { return "poseidon-merkle"; }
  std::size_t num_public_inputs() const override;
  void synthesize(r1cs::ConstraintSystem& cs) const override;
  std::uint64_t size() const override { return target_; }
  std::string describe() const override;

  const PoseidonMerkleLayout& layout() const { return layout_; }
  static PoseidonMerkleLayout layout_for(std::uint64_t target_constraints);
  static void build(r1cs::ConstraintSystem& cs, const PoseidonMerkleLayout& layout,
                    std::uint64_t partition_seed);

 private:
  std::uint64_t target_;
  std::uint64_t seed_;
  PoseidonMerkleLayout layout_;
};

}  // namespace prooflab::circuits
