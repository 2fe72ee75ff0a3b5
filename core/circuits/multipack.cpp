#include "core/circuits/multipack.hpp"

#include <algorithm>
#include <cassert>

#include "core/circuits/multieq.hpp"

namespace prooflab::circuits {

namespace {
void add_bits(LinearCombination& lc, std::span<const Boolean> bits) {
  lc.reserve(lc.size() + bits.size());
  for (std::size_t i = 0; i < bits.size(); ++i) bits[i].add_to(lc, MultiEq::power_of_two(i));
}
}  // namespace

Fr pack_value(std::span<const Boolean> bits_le) {
  assert(bits_le.size() <= kPackBits);
  Fr v = Fr::zero();
  for (std::size_t i = 0; i < bits_le.size(); ++i)
    if (bits_le[i].value()) v += MultiEq::power_of_two(i);
  return v;
}

Num pack_bits(ConstraintSystem& cs, std::span<const Boolean> bits_le, Annotation annotation) {
  const Fr value = pack_value(bits_le);
  const Variable packed = cs.alloc_aux(value);
  enforce_packs_to(cs, bits_le, packed, annotation);
  return Num::of(cs, packed, value);
}

void enforce_packs_to(ConstraintSystem& cs, std::span<const Boolean> bits_le, Variable target,
                      Annotation annotation) {
  assert(bits_le.size() <= kPackBits);
  cs.enforce_with(annotation,
                  [&](LinearCombination& a, LinearCombination& b, LinearCombination& c) {
                    add_bits(a, bits_le);
                    b.add(Variable::one());
                    c.add(target);
                  });
}

std::vector<Variable> pack_into_inputs(ConstraintSystem& cs, std::span<const Boolean> bits_le,
                                       Annotation annotation) {
  std::vector<Variable> inputs;
  for (std::size_t at = 0; at < bits_le.size(); at += kPackBits) {
    const auto chunk = bits_le.subspan(at, std::min(kPackBits, bits_le.size() - at));
    const Variable input = cs.alloc_input(pack_value(chunk));
    enforce_packs_to(cs, chunk, input, annotation);
    inputs.push_back(input);
  }
  return inputs;
}

std::vector<Boolean> alloc_bits_le(ConstraintSystem& cs, const Fr& value, std::size_t n,
                                   Annotation annotation) {
  assert(n <= 255);
  const auto limbs = value.to_canonical();
  std::vector<Boolean> bits;
  bits.reserve(n);
  for (std::size_t i = 0; i < n; ++i)
    bits.push_back(Boolean::alloc(cs, (limbs[i / 64] >> (i % 64)) & 1, annotation));
  return bits;
}

std::vector<Boolean> alloc_bits_le(ConstraintSystem& cs, std::uint64_t value, std::size_t n,
                                   Annotation annotation) {
  assert(n <= 64);
  std::vector<Boolean> bits;
  bits.reserve(n);
  for (std::size_t i = 0; i < n; ++i)
    bits.push_back(Boolean::alloc(cs, (value >> i) & 1, annotation));
  return bits;
}

}  // namespace prooflab::circuits
