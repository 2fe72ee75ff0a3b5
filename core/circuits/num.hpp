// A field element inside a circuit: its value and the linear combination that stands for it.
// The combination is built only when the constraint system records the shape, so linear
// algebra on Nums (additions, constant factors, Poseidon's MDS layers) is free in the
// witness path; only the constraints that allocate new variables cost anything.
#pragma once

#include "core/r1cs/constraint_system.hpp"

namespace prooflab::circuits {

using field::Fr;
using r1cs::ConstraintSystem;
using r1cs::LinearCombination;
using r1cs::Variable;

class Num {
 public:
  Num() = default;
  // A fresh aux variable (no constraint).
  static Num alloc(ConstraintSystem& cs, const Fr& value) {
    return of(cs, cs.alloc_aux(value), value);
  }
  static Num of(const ConstraintSystem& cs, Variable v, const Fr& value) {
    Num n;
    n.value_ = value;
    if (cs.records_shape()) n.lc_.add(v);
    return n;
  }
  static Num constant(const ConstraintSystem& cs, const Fr& c) {
    Num n;
    n.value_ = c;
    if (cs.records_shape()) n.lc_.add_constant(c);
    return n;
  }

  const Fr& value() const { return value_; }
  const LinearCombination& lc() const { return lc_; }

  Num& operator+=(const Num& o) {
    value_ += o.value_;
    lc_.add(o.lc_);
    return *this;
  }
  Num& operator-=(const Num& o) {
    value_ -= o.value_;
    lc_.sub(o.lc_);
    return *this;
  }
  // this += s·o
  Num& add_scaled(const Fr& s, const Num& o) {
    value_ += s * o.value_;
    lc_.add_scaled(s, o.lc_);
    return *this;
  }
  // this += c (c·ONE); `records` is the system's records_shape().
  Num& add_constant(const Fr& c, bool records) {
    value_ += c;
    if (records) lc_.add_constant(c);
    return *this;
  }
  Num& compact() {
    lc_.compact();
    return *this;
  }
  friend Num operator+(Num a, const Num& b) { return a += b; }
  friend Num operator-(Num a, const Num& b) { return a -= b; }

 private:
  LinearCombination lc_;
  Fr value_;
};

}  // namespace prooflab::circuits
