#include "core/circuits/boolean.hpp"

#include <stdexcept>

namespace prooflab::circuits {

namespace {

using Kind = Boolean::Kind;

constexpr Fr kTwo = Fr::from_u64(2);

// The allocated-bit operations on two bits given by their variables ("Is" views).

// c = a XOR b:  (a + a)·b = a + b - c
Boolean xor_vars(ConstraintSystem& cs, const Boolean& a, const Boolean& b, Annotation ann) {
  const bool v = a.value() != b.value();
  const Variable c = cs.alloc_aux_bit(v);
  cs.enforce_with(ann, [&](LinearCombination& la, LinearCombination& lb, LinearCombination& lc) {
    la.add(kTwo, a.variable());
    lb.add(b.variable());
    lc.add(a.variable()).add(b.variable()).sub(c);
  });
  return Boolean::from_bit_variable(c, v);
}

// c = a AND b over Booleans that are not constants: one of and, and-not, nor depending on
// which inputs are negated views, so the constraint reads the underlying variables.
Boolean and_vars(ConstraintSystem& cs, const Boolean& a, const Boolean& b, Annotation ann) {
  const bool v = a.value() && b.value();
  const Variable c = cs.alloc_aux_bit(v);
  // a·b = c with a, b written as linear combinations (x or 1 - x).
  cs.enforce_with(ann, [&](LinearCombination& la, LinearCombination& lb, LinearCombination& lc) {
    a.add_to(la, Fr::one());
    b.add_to(lb, Fr::one());
    lc.add(c);
  });
  return Boolean::from_bit_variable(c, v);
}

}  // namespace

Boolean Boolean::alloc(ConstraintSystem& cs, bool value, Annotation annotation) {
  const Variable x = cs.alloc_aux_bit(value);
  cs.enforce_with(annotation, [&](LinearCombination& a, LinearCombination& b, LinearCombination&) {
    a.add(Variable::one()).sub(x);
    b.add(x);
  });
  return from_bit_variable(x, value);
}

Boolean bit_xor(ConstraintSystem& cs, const Boolean& a, const Boolean& b, Annotation ann) {
  if (a.is_constant()) return a.value() ? !b : b;
  if (b.is_constant()) return b.value() ? !a : a;
  // a XOR (NOT b) = NOT (a XOR b); (NOT a) XOR (NOT b) = a XOR b.
  const bool a_not = a.kind() == Kind::kNot, b_not = b.kind() == Kind::kNot;
  const Boolean ua = a_not ? !a : a, ub = b_not ? !b : b;
  const Boolean r = xor_vars(cs, ua, ub, ann);
  return a_not != b_not ? !r : r;
}

Boolean bit_and(ConstraintSystem& cs, const Boolean& a, const Boolean& b, Annotation ann) {
  if (a.is_constant()) return a.value() ? b : Boolean::constant(false);
  if (b.is_constant()) return b.value() ? a : Boolean::constant(false);
  return and_vars(cs, a, b, ann);
}

Boolean sha256_ch(ConstraintSystem& cs, const Boolean& a, const Boolean& b, const Boolean& c,
                  Annotation ann) {
  const bool v = (a.value() && b.value()) != (!a.value() && c.value());
  if (a.is_constant() && b.is_constant() && c.is_constant()) return Boolean::constant(v);
  if (a.is_constant() && !a.value()) return c;
  if (b.is_constant() && !b.value()) return bit_and(cs, !a, c, ann);
  if (c.is_constant() && !c.value()) return bit_and(cs, a, b, ann);
  if (c.is_constant()) return !bit_and(cs, a, !b, ann);   // c true: NOT(a AND NOT b)
  if (b.is_constant()) return !bit_and(cs, !a, !c, ann);  // b true: NOT(NOT a AND NOT c)
  // a constant true falls through: one constraint, as in bellman, keeping the counts equal.
  // ch = a·(b - c) + c:  (b - c)·a = ch - c
  const Variable ch = cs.alloc_aux_bit(v);
  cs.enforce_with(ann, [&](LinearCombination& la, LinearCombination& lb, LinearCombination& lc) {
    b.add_to(la, Fr::one());
    c.add_to(la, -Fr::one());
    a.add_to(lb, Fr::one());
    lc.add(ch);
    c.add_to(lc, -Fr::one());
  });
  return Boolean::from_bit_variable(ch, v);
}

Boolean sha256_maj(ConstraintSystem& cs, const Boolean& a, const Boolean& b, const Boolean& c,
                   Annotation ann) {
  const bool v = (a.value() && b.value()) != (a.value() && c.value()) != (b.value() && c.value());
  if (a.is_constant() && b.is_constant() && c.is_constant()) return Boolean::constant(v);
  if (a.is_constant() && !a.value()) return bit_and(cs, b, c, ann);
  if (b.is_constant() && !b.value()) return bit_and(cs, a, c, ann);
  if (c.is_constant() && !c.value()) return bit_and(cs, a, b, ann);
  if (c.is_constant()) return !bit_and(cs, !a, !b, ann);
  if (b.is_constant()) return !bit_and(cs, !a, !c, ann);
  if (a.is_constant()) return !bit_and(cs, !b, !c, ann);
  // maj = a·(b + c - 2bc) + bc:  bc = b AND c;  (2bc - b - c)·a = bc - maj
  const Boolean bc = bit_and(cs, b, c, ann);
  const Variable maj = cs.alloc_aux_bit(v);
  cs.enforce_with(ann, [&](LinearCombination& la, LinearCombination& lb, LinearCombination& lc) {
    bc.add_to(la, kTwo);
    b.add_to(la, -Fr::one());
    c.add_to(la, -Fr::one());
    a.add_to(lb, Fr::one());
    bc.add_to(lc, Fr::one());
    lc.sub(maj);
  });
  return Boolean::from_bit_variable(maj, v);
}

void enforce_equal(ConstraintSystem& cs, const Boolean& a, const Boolean& b, Annotation ann) {
  if (a.is_constant() && b.is_constant()) {
    if (a.value() != b.value())
      throw std::invalid_argument("enforce_equal: the constants differ (an unsatisfiable circuit)");
    return;
  }
  // 0·0 = a - b
  cs.enforce_with(ann, [&](LinearCombination&, LinearCombination&, LinearCombination& lc) {
    a.add_to(lc, Fr::one());
    b.add_to(lc, -Fr::one());
  });
}

}  // namespace prooflab::circuits
