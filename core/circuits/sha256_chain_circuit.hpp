// "sha256": a chain of SHA-256 compressions over allocated message bits (512 per block,
// booleanity each), starting from the constant IV, with the final state's 256 bits packed
// into two public inputs. The target decides the number of blocks; the remainder (under one
// block) is padding. Pure SHA-256: the most bit-heavy circuit, for MSM 0/1 experiments.
#pragma once

#include <array>
#include <cstdint>

#include "core/circuits/circuit.hpp"

namespace prooflab::circuits {

struct Sha256ChainLayout {
  std::uint64_t blocks = 1;
};

class Sha256ChainCircuit final : public Circuit {
 public:
  static constexpr std::uint64_t kMaxTarget = std::uint64_t{1} << 28;

  // std::invalid_argument when the target is below one block or above kMaxTarget.
  Sha256ChainCircuit(std::uint64_t target_constraints, std::uint64_t partition_seed);

  std::string name() const override { return "sha256"; }
  std::size_t num_public_inputs() const override { return 2; }
  void synthesize(r1cs::ConstraintSystem& cs) const override;
  std::uint64_t size() const override { return target_; }
  std::string describe() const override;

  const Sha256ChainLayout& layout() const { return layout_; }
  // The smallest accepted target (one block).
  static std::uint64_t min_target();
  static Sha256ChainLayout layout_for(std::uint64_t target_constraints);
  // The structure alone, without padding.
  static void build(r1cs::ConstraintSystem& cs, const Sha256ChainLayout& layout,
                    std::uint64_t partition_seed);
  // The message of block b as the circuit draws it (for native cross-checks).
  static std::array<std::uint8_t, 64> message_block(std::uint64_t partition_seed, std::uint64_t b);

 private:
  std::uint64_t target_;
  std::uint64_t seed_;
  Sha256ChainLayout layout_;
};

}  // namespace prooflab::circuits
