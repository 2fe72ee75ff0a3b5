// A variable of a rank-1 constraint system: an index into the public inputs or into the
// private ("aux") assignment. Input 0 is the constant ONE, as in bellman/bellperson, so a
// constant c is written as the term c·ONE.
#pragma once

#include <cstdint>

namespace prooflab::r1cs {

struct Variable {
  enum class Kind : std::uint8_t { kInput, kAux };
  Kind kind = Kind::kInput;
  std::uint32_t index = 0;

  static constexpr Variable one() { return {Kind::kInput, 0}; }
  static constexpr Variable input(std::uint32_t i) { return {Kind::kInput, i}; }
  static constexpr Variable aux(std::uint32_t i) { return {Kind::kAux, i}; }
  constexpr bool is_input() const { return kind == Kind::kInput; }
  constexpr bool is_aux() const { return kind == Kind::kAux; }
  friend constexpr bool operator==(const Variable&, const Variable&) = default;
};

// The compact form the constraint system stores: bit 31 set for aux variables. Sorting by
// the packed value puts inputs before aux, the order of the combined assignment vector
// [inputs..., aux...], so a row sorted here stays sorted after compile() maps it to columns.
inline constexpr std::uint32_t kPackedAuxBit = 0x80000000u;
inline constexpr std::uint32_t kMaxVariableIndex = 0x7fffffffu;

constexpr std::uint32_t pack(Variable v) {
  return v.kind == Variable::Kind::kAux ? (v.index | kPackedAuxBit) : v.index;
}
constexpr Variable unpack(std::uint32_t packed) {
  return (packed & kPackedAuxBit) ? Variable::aux(packed & kMaxVariableIndex)
                                  : Variable::input(packed);
}

}  // namespace prooflab::r1cs
