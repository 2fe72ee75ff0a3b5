#include "core/circuits/poseidon_merkle_circuit.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <vector>

#include "core/circuits/layout_cache.hpp"
#include "core/circuits/merkle.hpp"
#include "core/circuits/multipack.hpp"
#include "core/circuits/padding.hpp"

namespace prooflab::circuits {

namespace {

std::uint64_t count(const PoseidonMerkleLayout& layout) {
  ConstraintSystem cs(r1cs::Mode::kWitness);
  PoseidonMerkleCircuit::build(cs, layout, 0);
  return total_size(cs);
}

std::uint64_t packed_inputs(std::uint64_t bits) { return (bits + kPackBits - 1) / kPackBits; }

}  // namespace

void PoseidonMerkleCircuit::build(ConstraintSystem& cs, const PoseidonMerkleLayout& layout,
                                  std::uint64_t seed) {
  const WitnessRng root_rng(seed);
  WitnessRng position_rng = root_rng.fork(1), leaf_rng = root_rng.fork(2),
             fill_rng = root_rng.fork(3);
  const std::vector<std::uint64_t> positions =
      distinct_positions(layout.paths, layout.depth, position_rng);
  std::vector<Fr> leaves(layout.paths);
  for (auto& leaf : leaves) leaf = leaf_rng.next_fr();
  const SparseMerklePaths tree = sparse_merkle_paths(positions, leaves, layout.depth, fill_rng);

  const Variable root = cs.alloc_input(tree.root);
  std::vector<Boolean> all_index_bits;
  all_index_bits.reserve(layout.paths * layout.depth);
  for (std::uint64_t p = 0; p < layout.paths; ++p) {
    r1cs::Scope scope(cs, "path", static_cast<std::uint32_t>(p));
    const std::vector<Boolean> bits = alloc_bits_le(cs, positions[p], layout.depth, "index bit");
    const Num leaf = Num::alloc(cs, leaves[p]);
    const Num computed = merkle_root(cs, leaf, bits, tree.siblings[p]);
    cs.enforce_with("root", [&](LinearCombination& a, LinearCombination& b, LinearCombination&) {
      a.add(computed.lc()).sub(root);
      b.add(Variable::one());
    });
    all_index_bits.insert(all_index_bits.end(), bits.begin(), bits.end());
  }
  pack_into_inputs(cs, all_index_bits, "index packing");
}

PoseidonMerkleLayout PoseidonMerkleCircuit::layout_for(std::uint64_t target) {
  static LayoutCache<PoseidonMerkleLayout> cache;
  return cache.get(target, [](std::uint64_t t) {
    const unsigned log2 = static_cast<unsigned>(std::bit_width(t)) - 1;
    PoseidonMerkleLayout l;
    l.depth = std::clamp(log2 >= 6 ? log2 - 6 : 0u, 4u, 32u);
    // cost(P) = base + P·per_path + 2·packed_inputs(P·depth): each packed input is an input
    // and a constraint. Measure base and per_path where both runs pack into one input.
    const std::uint64_t c1 = count({l.depth, 1}), c2 = count({l.depth, 2});
    const std::uint64_t per_path = c2 - c1;
    const std::uint64_t base = c1 - per_path - 2 * packed_inputs(l.depth);
    const auto cost = [&](std::uint64_t p) {
      return base + p * per_path + 2 * packed_inputs(p * l.depth);
    };
    std::uint64_t p = t > base ? (t - base) / per_path : 0;
    while (p > 0 && cost(p) > t) --p;
    if (p == 0)
      throw std::invalid_argument("poseidon-merkle: target_constraints " + std::to_string(t) +
                                  " is below one path of depth " + std::to_string(l.depth) + " (" +
                                  std::to_string(cost(1)) + ")");
    l.paths = p;
    return l;
  });
}

PoseidonMerkleCircuit::PoseidonMerkleCircuit(std::uint64_t target, std::uint64_t seed)
    : target_(target), seed_(seed) {
  if (target < kMinTarget || target > kMaxTarget)
    throw std::invalid_argument("poseidon-merkle: target_constraints " + std::to_string(target) +
                                " is outside the accepted range [" + std::to_string(kMinTarget) +
                                ", " + std::to_string(kMaxTarget) + "]");
  layout_ = layout_for(target);
}

std::size_t PoseidonMerkleCircuit::num_public_inputs() const {
  return 1 + packed_inputs(layout_.paths * layout_.depth);
}

void PoseidonMerkleCircuit::synthesize(ConstraintSystem& cs) const {
  const std::uint64_t start = total_size(cs) - 1;
  r1cs::Scope scope(cs, "poseidon-merkle");
  build(cs, layout_, seed_);
  WitnessRng pad_rng = WitnessRng(seed_).fork(0);
  pad_to_target(cs, start, target_, pad_rng, "poseidon-merkle");
}

std::string PoseidonMerkleCircuit::describe() const {
  return "poseidon-merkle: " + std::to_string(layout_.paths) + " paths of depth " +
         std::to_string(layout_.depth) + ", target " + std::to_string(target_);
}

}  // namespace prooflab::circuits
