// Booleans in a constraint system, after bellman's gadgets: a Boolean is a constant, an
// allocated bit, or the negation of one. Negation is free (it only changes how the bit
// enters linear combinations), and operations on constants fold away, so SHA-256 over a
// constant IV or shifted-in zeros costs only what depends on variables.
//
// Every operation computes its value in every mode; which constraints it creates depends
// only on which operands are constants (structure), never on values.
#pragma once

#include <cstdint>

#include "core/r1cs/constraint_system.hpp"

namespace prooflab::circuits {

using field::Fr;
using r1cs::Annotation;
using r1cs::ConstraintSystem;
using r1cs::LinearCombination;
using r1cs::Variable;

class Boolean {
 public:
  enum class Kind : std::uint8_t { kConstant, kIs, kNot };

  Boolean() = default;
  static Boolean constant(bool value) { return Boolean(Kind::kConstant, Variable::one(), value); }
  // An aux variable constrained to be a bit: (1 - x)·x = 0. One constraint.
  static Boolean alloc(ConstraintSystem& cs, bool value, Annotation annotation = "boolean");
  // A variable the caller has already constrained to {0, 1}.
  static Boolean from_bit_variable(Variable v, bool value) { return Boolean(Kind::kIs, v, value); }

  Kind kind() const { return kind_; }
  bool is_constant() const { return kind_ == Kind::kConstant; }
  bool value() const { return value_; }
  // The underlying variable (ONE for constants).
  Variable variable() const { return var_; }

  // NOT, free.
  Boolean operator!() const {
    switch (kind_) {
      case Kind::kConstant:
        return constant(!value_);
      case Kind::kIs:
        return Boolean(Kind::kNot, var_, !value_);
      case Kind::kNot:
        break;
    }
    return Boolean(Kind::kIs, var_, !value_);
  }

  // lc += coeff · this (a Not bit contributes coeff·ONE - coeff·x).
  void add_to(LinearCombination& lc, const Fr& coeff) const {
    switch (kind_) {
      case Kind::kConstant:
        if (value_) lc.add(coeff, Variable::one());
        return;
      case Kind::kIs:
        lc.add(coeff, var_);
        return;
      case Kind::kNot:
        lc.add(coeff, Variable::one());
        lc.add(-coeff, var_);
        return;
    }
  }
  LinearCombination lc() const {
    LinearCombination out;
    add_to(out, Fr::one());
    return out;
  }

 private:
  Boolean(Kind k, Variable v, bool value) : var_(v), kind_(k), value_(value) {}

  Variable var_ = Variable::one();
  Kind kind_ = Kind::kConstant;
  bool value_ = false;
};

// Each costs at most one constraint (sha256_maj two), zero when constants fold.
Boolean bit_xor(ConstraintSystem& cs, const Boolean& a, const Boolean& b, Annotation annotation);
Boolean bit_and(ConstraintSystem& cs, const Boolean& a, const Boolean& b, Annotation annotation);
inline Boolean bit_not(const Boolean& a) { return !a; }
// (a AND b) XOR ((NOT a) AND c)
Boolean sha256_ch(ConstraintSystem& cs, const Boolean& a, const Boolean& b, const Boolean& c,
                  Annotation annotation);
// (a AND b) XOR (a AND c) XOR (b AND c)
Boolean sha256_maj(ConstraintSystem& cs, const Boolean& a, const Boolean& b, const Boolean& c,
                   Annotation annotation);
// a = b, one constraint (none, and std::invalid_argument when unequal, for two constants).
void enforce_equal(ConstraintSystem& cs, const Boolean& a, const Boolean& b, Annotation annotation);

}  // namespace prooflab::circuits
