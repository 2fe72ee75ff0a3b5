#include "core/circuits/uint32.hpp"

#include <cassert>

namespace prooflab::circuits {

UInt32 UInt32::constant(std::uint32_t value) {
  UInt32 r;
  r.value_ = value;
  for (unsigned i = 0; i < 32; ++i) r.bits_[i] = Boolean::constant((value >> i) & 1);
  return r;
}

UInt32 UInt32::alloc(ConstraintSystem& cs, std::uint32_t value, Annotation annotation) {
  UInt32 r;
  r.value_ = value;
  for (unsigned i = 0; i < 32; ++i) r.bits_[i] = Boolean::alloc(cs, (value >> i) & 1, annotation);
  return r;
}

UInt32 UInt32::from_bits_le(std::span<const Boolean, 32> bits) {
  UInt32 r;
  for (unsigned i = 0; i < 32; ++i) {
    r.bits_[i] = bits[i];
    r.value_ |= static_cast<std::uint32_t>(bits[i].value()) << i;
  }
  return r;
}

UInt32 UInt32::from_bits_be(std::span<const Boolean, 32> bits) {
  std::array<Boolean, 32> le;
  for (unsigned i = 0; i < 32; ++i) le[i] = bits[31 - i];
  return from_bits_le(le);
}

std::array<Boolean, 32> UInt32::bits_be() const {
  std::array<Boolean, 32> be;
  for (unsigned i = 0; i < 32; ++i) be[i] = bits_[31 - i];
  return be;
}

bool UInt32::is_constant() const {
  for (const Boolean& b : bits_)
    if (!b.is_constant()) return false;
  return true;
}

UInt32 UInt32::rotr(unsigned by) const {
  by %= 32;
  UInt32 r;
  for (unsigned i = 0; i < 32; ++i) r.bits_[i] = bits_[(i + by) % 32];
  r.value_ = by == 0 ? value_ : (value_ >> by) | (value_ << (32 - by));
  return r;
}

UInt32 UInt32::shr(unsigned by) const {
  by %= 32;
  UInt32 r;
  for (unsigned i = 0; i < 32; ++i)
    r.bits_[i] = i + by < 32 ? bits_[i + by] : Boolean::constant(false);
  r.value_ = value_ >> by;
  return r;
}

UInt32 UInt32::xor_with(ConstraintSystem& cs, const UInt32& other, Annotation annotation) const {
  UInt32 r;
  for (unsigned i = 0; i < 32; ++i) r.bits_[i] = bit_xor(cs, bits_[i], other.bits_[i], annotation);
  r.value_ = value_ ^ other.value_;
  return r;
}

UInt32 UInt32::sha256_ch(ConstraintSystem& cs, const UInt32& a, const UInt32& b, const UInt32& c,
                         Annotation annotation) {
  UInt32 r;
  for (unsigned i = 0; i < 32; ++i)
    r.bits_[i] = circuits::sha256_ch(cs, a.bits_[i], b.bits_[i], c.bits_[i], annotation);
  r.value_ = (a.value_ & b.value_) ^ (~a.value_ & c.value_);
  return r;
}

UInt32 UInt32::sha256_maj(ConstraintSystem& cs, const UInt32& a, const UInt32& b, const UInt32& c,
                          Annotation annotation) {
  UInt32 r;
  for (unsigned i = 0; i < 32; ++i)
    r.bits_[i] = circuits::sha256_maj(cs, a.bits_[i], b.bits_[i], c.bits_[i], annotation);
  r.value_ = (a.value_ & b.value_) ^ (a.value_ & c.value_) ^ (b.value_ & c.value_);
  return r;
}

UInt32 UInt32::addmany(MultiEq& eq, std::span<const UInt32> operands, Annotation annotation) {
  assert(operands.size() >= 2 && operands.size() <= 10);
  std::uint64_t max_value = operands.size() * std::uint64_t{0xffffffffu};
  std::uint64_t sum = 0;
  bool all_constant = true;
  for (const UInt32& op : operands) {
    sum += op.value_;
    all_constant = all_constant && op.is_constant();
  }
  if (all_constant) return constant(static_cast<std::uint32_t>(sum));

  ConstraintSystem& cs = eq.cs();
  // The bits of the whole sum, carries included; the top ones are dropped after the check.
  std::array<Boolean, 36> result;
  unsigned n = 0;
  for (; max_value != 0; max_value >>= 1, ++n) {
    assert(n < result.size());
    result[n] = Boolean::alloc(cs, (sum >> n) & 1, annotation);
  }
  eq.enforce_equal_with(n, [&](LinearCombination& lhs, LinearCombination& rhs) {
    lhs.reserve(32 * operands.size());
    for (const UInt32& op : operands)
      for (unsigned i = 0; i < 32; ++i) op.bits_[i].add_to(lhs, MultiEq::power_of_two(i));
    rhs.reserve(n);
    for (unsigned i = 0; i < n; ++i) result[i].add_to(rhs, MultiEq::power_of_two(i));
  });
  UInt32 r;
  for (unsigned i = 0; i < 32; ++i) r.bits_[i] = result[i];
  r.value_ = static_cast<std::uint32_t>(sum);
  return r;
}

}  // namespace prooflab::circuits
