#include "core/circuits/sha256_chain_circuit.hpp"

#include <stdexcept>
#include <vector>

#include "core/circuits/layout_cache.hpp"
#include "core/circuits/multipack.hpp"
#include "core/circuits/padding.hpp"
#include "core/circuits/sha256.hpp"
#include "core/circuits/witness_rng.hpp"

namespace prooflab::circuits {

namespace {

std::uint64_t count(const Sha256ChainLayout& layout) {
  ConstraintSystem cs(r1cs::Mode::kWitness);
  Sha256ChainCircuit::build(cs, layout, 0);
  return total_size(cs);
}

// Block b's bits come from a stream of their own, so message_block() can reproduce them.
WitnessRng block_rng(std::uint64_t seed, std::uint64_t b) { return WitnessRng(seed).fork(b + 1); }

}  // namespace

std::array<std::uint8_t, 64> Sha256ChainCircuit::message_block(std::uint64_t seed,
                                                               std::uint64_t b) {
  WitnessRng rng = block_rng(seed, b);
  std::array<std::uint8_t, 64> out{};
  for (unsigned i = 0; i < 512; ++i)
    if (rng.next_bit()) out[i / 8] |= static_cast<std::uint8_t>(0x80 >> (i % 8));
  return out;
}

void Sha256ChainCircuit::build(ConstraintSystem& cs, const Sha256ChainLayout& layout,
                               std::uint64_t seed) {
  std::array<UInt32, 8> state = sha256_iv();
  for (std::uint64_t b = 0; b < layout.blocks; ++b) {
    r1cs::Scope scope(cs, "block", static_cast<std::uint32_t>(b));
    WitnessRng rng = block_rng(seed, b);
    std::array<Boolean, 512> bits;
    for (auto& bit : bits) bit = Boolean::alloc(cs, rng.next_bit(), "message bit");
    state = sha256_compression(cs, bits, state);
  }
  // The digest, first bit least significant in the packing.
  const std::array<Boolean, 256> digest = sha256_state_bits_be(state);
  pack_into_inputs(cs, digest, "digest packing");
}

std::uint64_t Sha256ChainCircuit::min_target() {
  static const std::uint64_t one_block = count({1});
  return one_block;
}

Sha256ChainLayout Sha256ChainCircuit::layout_for(std::uint64_t target) {
  static LayoutCache<Sha256ChainLayout> cache;
  return cache.get(target, [](std::uint64_t t) {
    const std::uint64_t one = min_target();
    const std::uint64_t per_block = count({2}) - one;
    return Sha256ChainLayout{1 + (t - one) / per_block};
  });
}

Sha256ChainCircuit::Sha256ChainCircuit(std::uint64_t target, std::uint64_t seed)
    : target_(target), seed_(seed) {
  if (target < min_target() || target > kMaxTarget)
    throw std::invalid_argument("sha256: target_constraints " + std::to_string(target) +
                                " is outside the accepted range [" + std::to_string(min_target()) +
                                ", " + std::to_string(kMaxTarget) + "] (at least one block)");
  layout_ = layout_for(target);
}

void Sha256ChainCircuit::synthesize(ConstraintSystem& cs) const {
  const std::uint64_t start = total_size(cs) - 1;  // ONE belongs to the circuit
  r1cs::Scope scope(cs, "sha256 chain");
  build(cs, layout_, seed_);
  WitnessRng pad_rng = WitnessRng(seed_).fork(0);
  pad_to_target(cs, start, target_, pad_rng, "sha256");
}

std::string Sha256ChainCircuit::describe() const {
  return "sha256: " + std::to_string(layout_.blocks) + " chained compressions, target " +
         std::to_string(target_);
}

}  // namespace prooflab::circuits
