// 32-bit words as 32 Booleans (least significant first), after bellman's UInt32: rotations
// and shifts are free re-wirings, XOR costs one constraint per non-constant bit, and
// addition mod 2^32 allocates the bits of the full sum (booleanity each) and enforces one
// packed equality through MultiEq.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "core/circuits/boolean.hpp"
#include "core/circuits/multieq.hpp"

namespace prooflab::circuits {

class UInt32 {
 public:
  UInt32() = default;
  static UInt32 constant(std::uint32_t value);
  // 32 allocated bits (32 constraints).
  static UInt32 alloc(ConstraintSystem& cs, std::uint32_t value, Annotation annotation = "u32 bit");
  // bits[0] is the most significant bit (SHA-256's byte order).
  static UInt32 from_bits_be(std::span<const Boolean, 32> bits);
  static UInt32 from_bits_le(std::span<const Boolean, 32> bits);

  std::uint32_t value() const { return value_; }
  const std::array<Boolean, 32>& bits_le() const { return bits_; }
  std::array<Boolean, 32> bits_be() const;
  bool is_constant() const;

  UInt32 rotr(unsigned by) const;
  UInt32 shr(unsigned by) const;
  UInt32 xor_with(ConstraintSystem& cs, const UInt32& other, Annotation annotation) const;
  // Bitwise SHA-256 functions (one constraint per bit for ch, two for maj, fewer on constants).
  static UInt32 sha256_ch(ConstraintSystem& cs, const UInt32& a, const UInt32& b, const UInt32& c,
                          Annotation annotation);
  static UInt32 sha256_maj(ConstraintSystem& cs, const UInt32& a, const UInt32& b, const UInt32& c,
                           Annotation annotation);
  // Σ operands mod 2^32, 2 to 10 operands. Allocates ceil(log2(n·(2^32-1))) result bits
  // (booleanity each) and one MultiEq equality; free when every operand is a constant.
  static UInt32 addmany(MultiEq& eq, std::span<const UInt32> operands, Annotation annotation);

 private:
  std::array<Boolean, 32> bits_{};
  std::uint32_t value_ = 0;
};

}  // namespace prooflab::circuits
