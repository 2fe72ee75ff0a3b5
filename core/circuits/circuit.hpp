// The benchmark circuits and their factory. A circuit is a recipe: synthesize() runs it into
// a constraint system of any mode. Everything that varies between partitions comes from the
// partition seed given to the factory, so circuits made with different seeds have the same
// shape (one compiled R1cs serves them all) and different witnesses.
//
// Size-parameterised circuits fill their target exactly: num_constraints + num_inputs ==
// target_constraints, so a power-of-two target gives a Groth16 domain of exactly that size
// (the domain holds the constraints plus one row per input). They approach the target with
// their real structure from below and pad the rest (less than one structural unit, a few
// hundred constraints at most, plus the rounding of the SHA-256 blocks) with booleanity-
// constrained bits.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "core/r1cs/constraint_system.hpp"
#include "core/r1cs/r1cs.hpp"
#include "core/r1cs/witness.hpp"

namespace prooflab::circuits {

class Circuit {
 public:
  virtual ~Circuit() = default;
  // The factory name ("porep-like", ...).
  virtual std::string name() const = 0;
  // Public inputs, not counting ONE (the R1cs has num_public_inputs() + 1 inputs).
  virtual std::size_t num_public_inputs() const = 0;
  virtual void synthesize(r1cs::ConstraintSystem& cs) const = 0;
  // One line on the structure chosen for the size ("18 challenges, depth 23, ...").
  virtual std::string describe() const { return name(); }
  // Constraints + inputs that synthesize() produces: what to reserve (at 2^27 a regrown
  // aux vector would copy gigabytes).
  virtual std::uint64_t size() const = 0;
};

// The names make_circuit accepts.
std::span<const std::string_view> circuit_names();

// Throws std::invalid_argument naming the bad name (and the accepted ones) or the size (and
// the accepted range of that circuit). "tiny" has a fixed shape and ignores the size.
std::unique_ptr<Circuit> make_circuit(std::string_view name, std::uint64_t target_constraints,
                                      std::uint64_t partition_seed);

// Conveniences: run a circuit into a fresh system and take its result.
r1cs::R1cs synthesize_shape(const Circuit& circuit, r1cs::CompileOptions options = {});
r1cs::Witness synthesize_witness(const Circuit& circuit);
// Shape and witness from one kBoth run.
std::pair<r1cs::R1cs, r1cs::Witness> synthesize_both(const Circuit& circuit);

}  // namespace prooflab::circuits
