#include "core/circuits/merkle.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>
#include <unordered_set>

#include "core/circuits/poseidon.hpp"
#include "core/circuits/poseidon_params.hpp"

namespace prooflab::circuits {

Num merkle_root(ConstraintSystem& cs, const Num& leaf, std::span<const Boolean> path_bits,
                std::span<const Fr> siblings) {
  if (path_bits.size() != siblings.size())
    throw std::invalid_argument("merkle_root: " + std::to_string(path_bits.size()) +
                                " path bits but " + std::to_string(siblings.size()) + " siblings");
  r1cs::Scope scope(cs, "merkle");
  Num cur = leaf;
  for (std::size_t level = 0; level < siblings.size(); ++level) {
    r1cs::Scope level_scope(cs, "level", static_cast<std::uint32_t>(level));
    const Boolean& bit = path_bits[level];
    const Num sib = Num::alloc(cs, siblings[level]);
    const Fr left_value = bit.value() ? sib.value() : cur.value();
    const Num left = Num::alloc(cs, left_value);
    // (sib - cur)·bit = left - cur
    cs.enforce_with("swap", [&](LinearCombination& a, LinearCombination& b, LinearCombination& c) {
      a.add(sib.lc()).sub(cur.lc());
      bit.add_to(b, Fr::one());
      c.add(left.lc()).sub(cur.lc());
    });
    Num right = cur + sib - left;
    right.compact();
    cur = poseidon_hash2(cs, left, right);
  }
  return cur;
}

Fr merkle_root_native(const Fr& leaf, std::uint64_t index, std::span<const Fr> siblings) {
  Fr cur = leaf;
  for (std::size_t level = 0; level < siblings.size(); ++level) {
    const bool right = (index >> level) & 1;
    cur = right ? poseidon_hash2(siblings[level], cur) : poseidon_hash2(cur, siblings[level]);
  }
  return cur;
}

SparseMerklePaths sparse_merkle_paths(std::span<const std::uint64_t> positions,
                                      std::span<const Fr> leaves, unsigned depth,
                                      WitnessRng& fill) {
  if (positions.size() != leaves.size())
    throw std::invalid_argument("sparse_merkle_paths: positions and leaves differ in number");
  if (depth > 63) throw std::invalid_argument("sparse_merkle_paths: depth above 63");
  if (positions.empty()) throw std::invalid_argument("sparse_merkle_paths: no leaves");
  std::map<std::uint64_t, Fr> level_nodes;
  for (std::size_t i = 0; i < positions.size(); ++i) {
    if (positions[i] >> depth)
      throw std::invalid_argument("sparse_merkle_paths: position " + std::to_string(positions[i]) +
                                  " is outside a tree of depth " + std::to_string(depth));
    if (!level_nodes.emplace(positions[i], leaves[i]).second)
      throw std::invalid_argument("sparse_merkle_paths: position " + std::to_string(positions[i]) +
                                  " appears twice");
  }
  SparseMerklePaths out;
  out.siblings.assign(positions.size(), std::vector<Fr>(depth));
  for (unsigned level = 0; level < depth; ++level) {
    // Unknown siblings get fresh pseudo-random values; the map's order fixes the draw order.
    std::map<std::uint64_t, Fr> siblings;
    for (const auto& [pos, value] : level_nodes)
      if (!level_nodes.count(pos ^ 1) && !siblings.count(pos ^ 1))
        siblings.emplace(pos ^ 1, fill.next_fr());
    for (std::size_t i = 0; i < positions.size(); ++i) {
      const std::uint64_t sib = (positions[i] >> level) ^ 1;
      auto it = level_nodes.find(sib);
      out.siblings[i][level] = it != level_nodes.end() ? it->second : siblings.at(sib);
    }
    std::map<std::uint64_t, Fr> parents;
    for (const auto& [pos, value] : level_nodes) {
      if (parents.count(pos >> 1)) continue;
      const std::uint64_t left = pos & ~std::uint64_t{1};
      const auto value_of = [&](std::uint64_t p) {
        auto it = level_nodes.find(p);
        return it != level_nodes.end() ? it->second : siblings.at(p);
      };
      parents.emplace(pos >> 1, poseidon_hash2(value_of(left), value_of(left | 1)));
    }
    level_nodes = std::move(parents);
  }
  out.root = level_nodes.begin()->second;
  return out;
}

std::vector<std::uint64_t> distinct_positions(std::size_t count, unsigned depth, WitnessRng& rng) {
  if (depth < 64 && count > (std::uint64_t{1} << depth))
    throw std::invalid_argument("distinct_positions: " + std::to_string(count) +
                                " distinct leaves do not fit a tree of depth " +
                                std::to_string(depth));
  const std::uint64_t mask = depth >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << depth) - 1;
  std::unordered_set<std::uint64_t> seen;
  std::vector<std::uint64_t> out;
  out.reserve(count);
  while (out.size() < count) {
    const std::uint64_t p = rng.next_u64() & mask;
    if (seen.insert(p).second) out.push_back(p);
  }
  return out;
}

}  // namespace prooflab::circuits
