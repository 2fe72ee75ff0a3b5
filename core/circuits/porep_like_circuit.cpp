#include "core/circuits/porep_like_circuit.hpp"

#include <algorithm>
#include <bit>
#include <numeric>
#include <stdexcept>

#include "core/circuits/layout_cache.hpp"
#include "core/circuits/merkle.hpp"
#include "core/circuits/multipack.hpp"
#include "core/circuits/padding.hpp"
#include "core/circuits/poseidon.hpp"
#include "core/circuits/sha256.hpp"

namespace prooflab::circuits {

namespace {

using r1cs::Scope;

constexpr unsigned kReplicaBits = 254;
constexpr unsigned kMaxDepth = 30;
// Constraints per Merkle level (swap + Poseidon), for choosing the depth before measuring.
constexpr std::uint64_t kMerkleLevelEstimate = 238;

// SHA-256 labelling of one node: the first block holds replica_id || node index || zeros,
// each further block two parent labels.
// A last block of tail_rounds rounds (0: none) fills what whole blocks leave of the target.
Num labelling(ConstraintSystem& cs, unsigned rounds, unsigned blocks, unsigned tail_rounds,
              std::span<const Boolean> replica_bits, std::span<const Boolean> node_bits,
              WitnessRng& parent_rng) {
  Scope scope(cs, "labelling");
  std::array<Boolean, 512> block;  // constant zeros where nothing is placed
  std::copy(replica_bits.begin(), replica_bits.end(), block.begin());
  std::copy(node_bits.begin(), node_bits.end(), block.begin() + 256);
  std::array<UInt32, 8> state = sha256_compression(cs, block, sha256_iv(), rounds);
  for (unsigned b = 1; b < blocks + (tail_rounds > 0 ? 1 : 0); ++b) {
    for (auto& bit : block) bit = Boolean::alloc(cs, parent_rng.next_bit(), "parent label bit");
    state = sha256_compression(cs, block, state, b < blocks ? rounds : tail_rounds);
  }
  const std::array<Boolean, 256> digest = sha256_state_bits_be(state);
  return pack_bits(cs, std::span<const Boolean>(digest).first(kPackBits), "label packing");
}

// The leaf committed for a challenge: the label, or Poseidon(label, column digest) where
// the digest chains `columns` allocated field elements.
Num column_leaf(ConstraintSystem& cs, const Num& label, unsigned columns, WitnessRng& rng) {
  if (columns == 0) return label;
  Scope scope(cs, "column");
  Num digest = Num::alloc(cs, rng.next_fr());
  for (unsigned j = 1; j < columns; ++j)
    digest = poseidon_hash2(cs, digest, Num::alloc(cs, rng.next_fr()));
  return poseidon_hash2(cs, label, digest);
}

std::uint64_t measure(const PorepLikeLayout& layout) {
  ConstraintSystem cs(r1cs::Mode::kWitness);
  PorepLikeCircuit::build(cs, layout, 0);
  return total_size(cs);
}

PorepLikeLayout uniform(unsigned challenges, unsigned depth, unsigned rounds) {
  PorepLikeLayout l;
  l.challenges = challenges;
  l.tree_depth = depth;
  l.sha_rounds = rounds;
  l.sha_blocks.assign(challenges, 1);
  l.columns.assign(challenges, 0);
  return l;
}

// n extra units spread over the challenges, the first ones taking the remainder.
void spread(std::vector<unsigned>& per_challenge, std::uint64_t n) {
  const std::uint64_t c = per_challenge.size();
  for (std::uint64_t i = 0; i < c; ++i)
    per_challenge[i] += static_cast<unsigned>(n / c + (i < n % c ? 1 : 0));
}

PorepLikeLayout compute_layout(std::uint64_t t) {
  const auto challenges = static_cast<unsigned>(std::clamp<std::uint64_t>(
      t / PorepLikeCircuit::kConstraintsPerChallenge, 1, PorepLikeCircuit::kMaxChallenges));
  const unsigned min_depth = static_cast<unsigned>(std::bit_width(challenges - 1u)) + 1;
  const auto budget_depth = static_cast<unsigned>(
      std::min<double>(kMaxDepth, PorepLikeCircuit::kMerkleShare * static_cast<double>(t) /
                                      (challenges * kMerkleLevelEstimate)));
  unsigned depth = std::clamp(budget_depth, min_depth, kMaxDepth);

  // One column element costs one Poseidon hash whatever the rest of the layout.
  const auto column_cost = [](const PorepLikeLayout& l, std::uint64_t base) {
    PorepLikeLayout probe = l;
    probe.columns[0] += 1;
    return measure(probe) - base;
  };

  PorepLikeLayout l = uniform(challenges, depth, 64);
  std::uint64_t base = measure(l);
  if (base <= t) {
    // Full blocks: one per challenge, more up to the SHA-256 share, then columns. What one
    // more block, a tail block or a column costs does not depend on the number of
    // challenges: measure it on one challenge (cheap at 2^27, where the base has 18).
    const PorepLikeLayout one = uniform(1, depth, 64);
    const std::uint64_t one_base = measure(one);
    const auto increment = [&](auto&& change) {
      PorepLikeLayout probe = one;
      change(probe);
      return measure(probe) - one_base;
    };
    const std::uint64_t block_cost = increment([](PorepLikeLayout& p) { p.sha_blocks[0] = 2; });
    const auto sha_budget = static_cast<std::uint64_t>(PorepLikeCircuit::kShaShare * t);
    const std::uint64_t extra_blocks = sha_budget > base ? (sha_budget - base) / block_cost : 0;
    std::uint64_t rest = t - base - extra_blocks * block_cost;
    // What whole blocks leave (up to 3 % of the target plus one block): a last block of as
    // many rounds as fit, then columns for the remainder (less than one round).
    unsigned lo = 0, hi = 64;  // the most rounds whose block fits in `rest` (0: none)
    while (lo < hi) {
      const unsigned mid = (lo + hi + 1) / 2;
      if (increment([&](PorepLikeLayout& p) { p.tail_rounds = mid; }) <= rest)
        lo = mid;
      else
        hi = mid - 1;
    }
    l.tail_rounds = lo;
    const std::uint64_t tail_cost =
        lo > 0 ? increment([&](PorepLikeLayout& p) { p.tail_rounds = lo; }) : 0;
    rest -= tail_cost;
    const std::uint64_t per_column = increment([](PorepLikeLayout& p) { p.columns[0] = 1; });
    const std::uint64_t extra_columns = rest / per_column;
    spread(l.sha_blocks, extra_blocks);
    spread(l.columns, extra_columns);
    l.structure_size = base + extra_blocks * block_cost + tail_cost + extra_columns * per_column;
    return l;
  }

  // One full block per challenge does not fit: the most rounds that fit (and, if not even
  // one round does, a shallower tree), then columns. Rounds are preferred to columns, which
  // may leave up to one column's cost (237) of padding: the padding is bits, like SHA-256.
  for (;; --depth) {
    unsigned lo = 0, hi = 63;
    while (lo < hi) {
      const unsigned mid = (lo + hi + 1) / 2;
      if (measure(uniform(challenges, depth, mid)) <= t)
        lo = mid;
      else
        hi = mid - 1;
    }
    if (lo > 0) {
      l = uniform(challenges, depth, lo);
      base = measure(l);
      const std::uint64_t per_column = column_cost(l, base);
      const std::uint64_t columns = (t - base) / per_column;
      spread(l.columns, columns);
      l.structure_size = base + columns * per_column;
      return l;
    }
    if (depth == min_depth)
      throw std::invalid_argument("porep-like: target_constraints " + std::to_string(t) +
                                  " is too small for one challenge with one SHA-256 round");
  }
}

}  // namespace

std::uint64_t PorepLikeLayout::total_blocks() const {
  return std::accumulate(sha_blocks.begin(), sha_blocks.end(), std::uint64_t{0});
}
std::uint64_t PorepLikeLayout::total_columns() const {
  return std::accumulate(columns.begin(), columns.end(), std::uint64_t{0});
}

void PorepLikeCircuit::build(ConstraintSystem& cs, const PorepLikeLayout& layout,
                             std::uint64_t seed) {
  const WitnessRng root_rng(seed);
  WitnessRng replica_rng = root_rng.fork(1), position_rng = root_rng.fork(2),
             parent_rng = root_rng.fork(3), column_rng = root_rng.fork(4),
             fill_rng = root_rng.fork(5);
  const unsigned c = layout.challenges, depth = layout.tree_depth;

  // Public inputs, except comm_r which is known only once the leaves are.
  const Fr replica_id = replica_rng.next_fr();
  const Variable replica_input = cs.alloc_input(replica_id);
  const std::vector<std::uint64_t> positions = distinct_positions(c, depth, position_rng);
  std::vector<Variable> challenge_inputs;
  for (unsigned i = 0; i < c; ++i)
    challenge_inputs.push_back(cs.alloc_input(Fr::from_u64(positions[i])));

  std::vector<Boolean> replica_bits;
  {
    Scope scope(cs, "replica id");
    replica_bits = alloc_bits_le(cs, replica_id, kReplicaBits, "bit");
    enforce_packs_to(cs, replica_bits, replica_input, "packing");
  }

  std::vector<std::vector<Boolean>> node_bits(c);
  std::vector<Num> leaves(c);
  std::vector<Fr> leaf_values(c);
  for (unsigned i = 0; i < c; ++i) {
    Scope scope(cs, "challenge", i);
    node_bits[i] = alloc_bits_le(cs, positions[i], depth, "node bit");
    enforce_packs_to(cs, node_bits[i], challenge_inputs[i], "challenge packing");
    const Num label =
        labelling(cs, layout.sha_rounds, layout.sha_blocks[i], i + 1 == c ? layout.tail_rounds : 0,
                  replica_bits, node_bits[i], parent_rng);
    leaves[i] = column_leaf(cs, label, layout.columns[i], column_rng);
    leaf_values[i] = leaves[i].value();
  }

  const SparseMerklePaths tree = sparse_merkle_paths(positions, leaf_values, depth, fill_rng);
  const Variable comm_r = cs.alloc_input(tree.root);
  for (unsigned i = 0; i < c; ++i) {
    Scope scope(cs, "challenge", i);
    const Num root = merkle_root(cs, leaves[i], node_bits[i], tree.siblings[i]);
    cs.enforce_with("comm_r", [&](LinearCombination& a, LinearCombination& b, LinearCombination&) {
      a.add(root.lc()).sub(comm_r);
      b.add(Variable::one());
    });
  }
}

PorepLikeLayout PorepLikeCircuit::layout_for(std::uint64_t target) {
  static LayoutCache<PorepLikeLayout> cache;
  return cache.get(target, compute_layout);
}

PorepLikeCircuit::PorepLikeCircuit(std::uint64_t target, std::uint64_t seed)
    : target_(target), seed_(seed) {
  if (target < kMinTarget || target > kMaxTarget)
    throw std::invalid_argument("porep-like: target_constraints " + std::to_string(target) +
                                " is outside the accepted range [" + std::to_string(kMinTarget) +
                                ", " + std::to_string(kMaxTarget) + "]");
  layout_ = layout_for(target);
}

void PorepLikeCircuit::synthesize(ConstraintSystem& cs) const {
  const std::uint64_t start = total_size(cs) - 1;
  Scope scope(cs, "porep");
  build(cs, layout_, seed_);
  WitnessRng pad_rng = WitnessRng(seed_).fork(0);
  pad_to_target(cs, start, target_, pad_rng, "porep-like");
}

std::string PorepLikeCircuit::describe() const {
  const PorepLikeLayout& l = layout_;
  return "porep-like: " + std::to_string(l.challenges) + " challenges, tree depth " +
         std::to_string(l.tree_depth) + ", " + std::to_string(l.total_blocks()) +
         " SHA-256 blocks of " + std::to_string(l.sha_rounds) + " rounds" +
         (l.tail_rounds ? " + one of " + std::to_string(l.tail_rounds) + " rounds" : "") + ", " +
         std::to_string(l.total_columns()) + " column elements, " +
         std::to_string(target_ - l.structure_size) + " padding constraints, target " +
         std::to_string(target_);
}

}  // namespace prooflab::circuits
