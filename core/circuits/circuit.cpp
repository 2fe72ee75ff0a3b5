#include "core/circuits/circuit.hpp"

#include <array>
#include <stdexcept>

#include "core/circuits/porep_like_circuit.hpp"
#include "core/circuits/poseidon_merkle_circuit.hpp"
#include "core/circuits/sha256_chain_circuit.hpp"
#include "core/circuits/tiny_circuit.hpp"

namespace prooflab::circuits {

namespace {
constexpr std::array<std::string_view, 4> kNames = {"porep-like", "tiny", "sha256",
                                                    "poseidon-merkle"};
}  // namespace

std::span<const std::string_view> circuit_names() { return kNames; }

std::unique_ptr<Circuit> make_circuit(std::string_view name, std::uint64_t target_constraints,
                                      std::uint64_t partition_seed) {
  if (name == "porep-like")
    return std::make_unique<PorepLikeCircuit>(target_constraints, partition_seed);
  if (name == "tiny") return std::make_unique<TinyCircuit>(partition_seed);
  if (name == "sha256")
    return std::make_unique<Sha256ChainCircuit>(target_constraints, partition_seed);
  if (name == "poseidon-merkle")
    return std::make_unique<PoseidonMerkleCircuit>(target_constraints, partition_seed);
  std::string accepted;
  for (const auto n : kNames) accepted += (accepted.empty() ? "" : ", ") + std::string(n);
  throw std::invalid_argument("unknown circuit '" + std::string(name) + "' (accepted: " + accepted +
                              ")");
}

namespace {
r1cs::ConstraintSystem reserved(r1cs::Mode mode, const Circuit& circuit) {
  r1cs::ConstraintSystem cs(mode);
  cs.reserve(circuit.size(), circuit.size());
  return cs;
}
}  // namespace

r1cs::R1cs synthesize_shape(const Circuit& circuit, r1cs::CompileOptions options) {
  r1cs::ConstraintSystem cs = reserved(r1cs::Mode::kShape, circuit);
  circuit.synthesize(cs);
  return r1cs::compile(std::move(cs), options);
}

r1cs::Witness synthesize_witness(const Circuit& circuit) {
  r1cs::ConstraintSystem cs = reserved(r1cs::Mode::kWitness, circuit);
  circuit.synthesize(cs);
  return cs.take_witness();
}

std::pair<r1cs::R1cs, r1cs::Witness> synthesize_both(const Circuit& circuit) {
  r1cs::ConstraintSystem cs = reserved(r1cs::Mode::kBoth, circuit);
  circuit.synthesize(cs);
  r1cs::Witness w = cs.take_witness();
  return {r1cs::compile(std::move(cs)), std::move(w)};
}

}  // namespace prooflab::circuits
