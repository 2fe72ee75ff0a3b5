// The toy prime field of REFERENCE.md's Groth16 known-answer test (bellperson's "dummy
// engine"): r = 64513 = 2^10·63 + 1, multiplicative generator 5, two-adicity 10, as a
// MontField with one 64-bit limb, plus what the evaluation domains need to know about it.
#pragma once

#include <cstdint>
#include <ostream>

#include "core/field/mont.hpp"
#include "core/poly/domain.hpp"

namespace prooflab::test {

inline constexpr std::uint64_t kToyModulus = 64513;

namespace toy_detail {
// -m^-1 mod 2^64 by Newton's iteration (each step doubles the correct low bits; m·m ≡ 1
// mod 8 for odd m starts it at 3 bits).
constexpr std::uint64_t neg_inverse_mod_2_64(std::uint64_t m) {
  std::uint64_t x = m;
  for (int i = 0; i < 5; ++i) x *= 2 - m * x;
  return 0 - x;
}
}  // namespace toy_detail

struct ToyParams {
  static constexpr std::size_t kLimbs = 1;
  static constexpr std::size_t kBits = 16;
  static constexpr std::size_t kBytes = 2;
  static constexpr field::BigInt<1> kModulus = {kToyModulus};
  // R = 2^64: R mod m = 0x1076, R² mod m = 0x4151, −m⁻¹ mod 2^64 = 0x849df32ec7f0fbff.
  static constexpr field::BigInt<1> kOne = {
      static_cast<std::uint64_t>((field::u128{1} << 64) % kToyModulus)};
  static constexpr field::BigInt<1> kR2 = {
      static_cast<std::uint64_t>(field::u128{kOne[0]} * kOne[0] % kToyModulus)};
  static constexpr std::uint64_t kInv = toy_detail::neg_inverse_mod_2_64(kToyModulus);
};
static_assert(ToyParams::kOne[0] == 0x1076 && ToyParams::kR2[0] == 0x4151 &&
              ToyParams::kInv == 0x849df32ec7f0fbffULL);

using ToyField = field::MontField<ToyParams>;

inline constexpr unsigned kToyTwoAdicity = 10;     // 64512 = 2^10 · 63
inline constexpr std::uint64_t kToyGenerator = 5;  // generates the order-64512 group

// gtest prints a toy element as its integer (found by ADL through ToyParams).
inline void PrintTo(const ToyField& x, std::ostream* os) { *os << x.to_canonical()[0]; }

}  // namespace prooflab::test

namespace prooflab::poly {

template <>
struct FieldRoots<test::ToyField> {
  static constexpr unsigned kTwoAdicity = test::kToyTwoAdicity;
  // 5^63: the generator raised to the odd part of r − 1 (bellman's root_of_unity).
  static constexpr test::ToyField max_root_of_unity() {
    return test::ToyField::from_u64(test::kToyGenerator).pow(std::uint64_t{63});
  }
  static constexpr test::ToyField multiplicative_generator() {
    return test::ToyField::from_u64(test::kToyGenerator);
  }
};

}  // namespace prooflab::poly
