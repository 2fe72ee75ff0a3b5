// Poseidon (width 3, x^5, 8 + 55 rounds) in circuit against the native permutation, its
// constant generation, its cost (237 per permutation), and Merkle inclusion paths in a binary
// Poseidon tree: a full random tree, a wrong leaf caught by the root check, sparse paths.
#include <gtest/gtest.h>

#include "test_util.hpp"

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/circuits/merkle.hpp"
#include "core/circuits/multipack.hpp"
#include "core/circuits/poseidon.hpp"
#include "core/circuits/poseidon_params.hpp"
#include "core/circuits/sha256_native.hpp"
#include "core/r1cs/r1cs.hpp"
#include "core/r1cs/satisfiability.hpp"

namespace {

namespace pt = prooflab::test;

using prooflab::field::Fr;
using namespace prooflab::circuits;
using prooflab::r1cs::ConstraintSystem;
using prooflab::r1cs::Mode;

std::optional<prooflab::r1cs::UnsatisfiedConstraint> unsatisfied(const ConstraintSystem& cs) {
  return prooflab::r1cs::first_unsatisfied(prooflab::r1cs::compile(cs), cs.witness());
}

TEST(PoseidonParams, ConstantsFollowTheDocumentedGeneration) {
  const PoseidonParams& p = poseidon_params();
  // MDS: the Cauchy matrix 1 / (i + j + 3).
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 3; ++j) EXPECT_EQ(p.mds[i][j] * Fr::from_u64(i + j + 3), Fr::one());
  // Round constant k: SHA-256(seed || k as 4 big-endian bytes), top two bits cleared.
  for (const std::uint32_t k : {0u, 1u, 100u, 188u}) {
    std::vector<std::uint8_t> msg(
        PoseidonParams::kConstantsSeed,
        PoseidonParams::kConstantsSeed + std::strlen(PoseidonParams::kConstantsSeed));
    for (int shift = 24; shift >= 0; shift -= 8)
      msg.push_back(static_cast<std::uint8_t>(k >> shift));
    auto digest = sha256(msg);
    digest[0] &= 0x3f;
    EXPECT_EQ(p.round_constants[k / 3][k % 3], *Fr::from_bytes_be(digest)) << "k = " << k;
  }
  // Full rounds: 4 first, 4 last.
  int full = 0;
  for (std::size_t r = 0; r < PoseidonParams::kRounds; ++r)
    full += PoseidonParams::is_full_round(r);
  EXPECT_EQ(full, 8);
  EXPECT_TRUE(PoseidonParams::is_full_round(3) && !PoseidonParams::is_full_round(4));
  EXPECT_TRUE(PoseidonParams::is_full_round(59) && !PoseidonParams::is_full_round(58));
}

TEST(PoseidonNative, IsAPermutationThatMixes) {
  std::array<Fr, 3> a = {Fr::zero(), Fr::zero(), Fr::zero()}, b = a;
  b[2] = Fr::one();
  poseidon_permute(a);
  poseidon_permute(b);
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(a[i] == b[i]) << "element " << i;
  EXPECT_FALSE(poseidon_hash2(Fr::one(), Fr::zero()) == poseidon_hash2(Fr::zero(), Fr::one()));
}

TEST(PoseidonGadget, MatchesTheNativePermutationAndCosts237) {
  auto rng = pt::test_rng();
  SCOPED_TRACE(pt::seed_note());
  for (int iter = 0; iter < pt::iterations(10, 2); ++iter) {
    std::array<Fr, 3> in = {Fr::random(rng), Fr::random(rng), Fr::random(rng)};
    ConstraintSystem cs(Mode::kBoth);
    std::array<Num, 3> state = {Num::alloc(cs, in[0]), Num::alloc(cs, in[1]),
                                Num::alloc(cs, in[2])};
    const auto out = poseidon_permutation(cs, state);
    EXPECT_EQ(cs.num_constraints(), 237u);
    std::array<Fr, 3> expected = in;
    poseidon_permute(expected);
    for (int i = 0; i < 3; ++i) EXPECT_EQ(out[i].value(), expected[i]) << "element " << i;
    const auto bad = unsatisfied(cs);
    EXPECT_FALSE(bad.has_value()) << bad->message();
  }
}

TEST(PoseidonGadget, HashOfCombinationsMatchesNative) {
  auto rng = pt::test_rng();
  ConstraintSystem cs(Mode::kBoth);
  const Fr x = Fr::random(rng), y = Fr::random(rng);
  const Num a = Num::alloc(cs, x), b = Num::alloc(cs, y);
  // Inputs that are combinations, not single variables: a + b and a - 7.
  Num sum = a + b;
  Num shifted = a;
  shifted.add_constant(-Fr::from_u64(7), cs.records_shape());
  const Num h = poseidon_hash2(cs, sum, shifted);
  EXPECT_EQ(h.value(), poseidon_hash2(x + y, x - Fr::from_u64(7)));
  EXPECT_EQ(cs.num_constraints(), 237u);
  std::printf("[  COUNT   ] Poseidon 2-to-1 (width 3, 8 + 55 rounds): %zu constraints, %zu aux\n",
              cs.num_constraints(), cs.num_aux() - 2);
  EXPECT_FALSE(unsatisfied(cs).has_value());
}

TEST(PoseidonGadget, WitnessModeGivesTheSameValues) {
  auto rng = pt::test_rng();
  const Fr x = Fr::random(rng), y = Fr::random(rng);
  ConstraintSystem both(Mode::kBoth), witness(Mode::kWitness);
  poseidon_hash2(both, Num::alloc(both, x), Num::alloc(both, y));
  poseidon_hash2(witness, Num::alloc(witness, x), Num::alloc(witness, y));
  EXPECT_EQ(both.witness(), witness.witness());
  EXPECT_EQ(both.num_constraints(), witness.num_constraints());
}

// A full tree of 2^depth random leaves, level by level (levels[0] = leaves).
std::vector<std::vector<Fr>> full_tree(std::mt19937_64& rng, unsigned depth) {
  std::vector<std::vector<Fr>> levels(1);
  for (std::size_t i = 0; i < (std::size_t{1} << depth); ++i) levels[0].push_back(Fr::random(rng));
  for (unsigned l = 0; l < depth; ++l) {
    std::vector<Fr> up;
    for (std::size_t i = 0; i < levels[l].size(); i += 2)
      up.push_back(poseidon_hash2(levels[l][i], levels[l][i + 1]));
    levels.push_back(up);
  }
  return levels;
}

// Synthesizes the inclusion of `leaf` at `index` with the given siblings against a public
// root; returns the system.
void synthesize_path(ConstraintSystem& cs, const Fr& root, const Fr& leaf, std::uint64_t index,
                     const std::vector<Fr>& siblings) {
  const auto root_input = cs.alloc_input(root);
  const auto bits = alloc_bits_le(cs, index, siblings.size(), "index bit");
  const Num computed = merkle_root(cs, Num::alloc(cs, leaf), bits, siblings);
  cs.enforce_with("root", [&](auto& a, auto& b, auto&) {
    a.add(computed.lc()).sub(root_input);
    b.add(prooflab::r1cs::Variable::one());
  });
}

TEST(MerkleGadget, VerifiesEveryLeafOfARandomTreeAndRejectsAWrongLeaf) {
  auto rng = pt::test_rng();
  SCOPED_TRACE(pt::seed_note());
  const unsigned depth = 4;
  const auto tree = full_tree(rng, depth);
  const Fr root = tree[depth][0];
  const std::size_t leaves = pt::kSlowBuild ? 2 : 16;
  for (std::uint64_t index = 0; index < leaves; ++index) {
    std::vector<Fr> siblings;
    for (unsigned l = 0; l < depth; ++l) siblings.push_back(tree[l][(index >> l) ^ 1]);
    EXPECT_EQ(merkle_root_native(tree[0][index], index, siblings), root);

    ConstraintSystem cs(Mode::kBoth);
    synthesize_path(cs, root, tree[0][index], index, siblings);
    EXPECT_EQ(cs.num_constraints(), depth + depth * 238u + 1);  // bits, levels, root
    const auto bad = unsatisfied(cs);
    EXPECT_FALSE(bad.has_value()) << "leaf " << index << ": " << bad->message();

    ConstraintSystem wrong(Mode::kBoth);
    synthesize_path(wrong, root, tree[0][index] + Fr::one(), index, siblings);
    const auto caught = unsatisfied(wrong);
    ASSERT_TRUE(caught.has_value()) << "leaf " << index;
    EXPECT_EQ(caught->annotation, "root");
    EXPECT_EQ(caught->index, wrong.num_constraints() - 1);

    // The right leaf at the wrong position fails as well (the path bits matter).
    ConstraintSystem moved(Mode::kBoth);
    synthesize_path(moved, root, tree[0][index], index ^ 1, siblings);
    EXPECT_TRUE(unsatisfied(moved).has_value());
  }
}

TEST(MerkleGadget, ACorruptedSwapIsNamed) {
  auto rng = pt::test_rng();
  const auto tree = full_tree(rng, 2);
  ConstraintSystem cs(Mode::kBoth);
  synthesize_path(cs, tree[2][0], tree[0][2], 2, {tree[0][3], tree[1][0]});
  auto r1cs = prooflab::r1cs::compile(cs);
  auto w = cs.witness();
  // The aux layout: 2 index bits, the leaf, then per level sibling and left.
  w.aux[3 + 1] += Fr::one();  // "left" of level 0
  const auto bad = prooflab::r1cs::first_unsatisfied(r1cs, w);
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->annotation, "merkle/level 0/swap");
}

TEST(SparseMerkle, AllPathsReachOneRoot) {
  auto rng = pt::test_rng();
  WitnessRng wrng(rng());
  const unsigned depth = 20;
  const auto positions = distinct_positions(12, depth, wrng);
  std::vector<Fr> leaves;
  for (std::size_t i = 0; i < positions.size(); ++i) leaves.push_back(Fr::random(rng));
  // Two leaves that are siblings exercise the shared-node path.
  std::vector<std::uint64_t> with_siblings = positions;
  with_siblings.push_back(positions[0] ^ 1);
  leaves.push_back(Fr::random(rng));
  const auto paths = sparse_merkle_paths(with_siblings, leaves, depth, wrng);
  for (std::size_t i = 0; i < with_siblings.size(); ++i)
    EXPECT_EQ(merkle_root_native(leaves[i], with_siblings[i], paths.siblings[i]), paths.root) << i;
  EXPECT_EQ(paths.siblings[0][0], leaves.back());

  std::vector<std::uint64_t> twice = {3, 3};
  std::vector<Fr> two = {Fr::one(), Fr::one()};
  EXPECT_THROW(sparse_merkle_paths(twice, two, 4, wrng), std::invalid_argument);
  std::vector<std::uint64_t> outside = {16};
  EXPECT_THROW(sparse_merkle_paths(outside, std::span<const Fr>(two).first(1), 4, wrng),
               std::invalid_argument);
  EXPECT_THROW(distinct_positions(5, 2, wrng), std::invalid_argument);
}

}  // namespace
