// A linear combination Σ coeff_i · var_i of constraint-system variables. Terms are kept in
// the order they were added, duplicates included; the constraint system merges equal
// variables (and drops zero sums) when it records a constraint, so building stays a plain
// append. Up to four terms live inline (see SmallVector).
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <utility>

#include "core/field/fr.hpp"
#include "core/r1cs/small_vector.hpp"
#include "core/r1cs/variable.hpp"

namespace prooflab::r1cs {

using field::Fr;

struct Term {
  Variable var;
  Fr coeff;
};

class LinearCombination {
 public:
  static constexpr std::size_t kInlineTerms = 4;

  LinearCombination() = default;
  // The combination 1·v.
  LinearCombination(Variable v) { terms_.push_back({v, Fr::one()}); }  // NOLINT: implicit
  LinearCombination(const Fr& coeff, Variable v) { terms_.push_back({v, coeff}); }

  static LinearCombination zero() { return {}; }
  // The constant c (c·ONE).
  static LinearCombination constant(const Fr& c) { return {c, Variable::one()}; }

  std::size_t size() const { return terms_.size(); }
  bool empty() const { return terms_.empty(); }
  std::span<const Term> terms() const { return terms_.span(); }
  void clear() { terms_.clear(); }
  void reserve(std::size_t n) { terms_.reserve(n); }

  LinearCombination& add(const Fr& coeff, Variable v) {
    terms_.push_back({v, coeff});
    return *this;
  }
  LinearCombination& add(Variable v) { return add(Fr::one(), v); }
  LinearCombination& sub(Variable v) { return add(-Fr::one(), v); }
  LinearCombination& add_constant(const Fr& c) { return add(c, Variable::one()); }
  LinearCombination& add(const LinearCombination& o) {
    terms_.append(o.terms_.data(), o.terms_.size());
    return *this;
  }
  // += scale · o
  LinearCombination& add_scaled(const Fr& scale, const LinearCombination& o) {
    terms_.reserve(terms_.size() + o.size());
    for (const Term& t : o.terms_) terms_.push_back({t.var, scale * t.coeff});
    return *this;
  }
  LinearCombination& sub(const LinearCombination& o) { return add_scaled(-Fr::one(), o); }
  LinearCombination& scale(const Fr& s) {
    for (Term& t : terms_) t.coeff *= s;
    return *this;
  }

  // Merges the terms of equal variables and drops those that sum to zero, leaving them sorted
  // (inputs first). Needed where combinations are combined repeatedly, e.g. the MDS layers of
  // Poseidon, which would otherwise grow geometrically.
  LinearCombination& compact();

  LinearCombination& operator+=(Variable v) { return add(v); }
  LinearCombination& operator-=(Variable v) { return sub(v); }
  LinearCombination& operator+=(const Term& t) { return add(t.coeff, t.var); }
  LinearCombination& operator-=(const Term& t) { return add(-t.coeff, t.var); }
  LinearCombination& operator+=(const LinearCombination& o) { return add(o); }
  LinearCombination& operator-=(const LinearCombination& o) { return sub(o); }
  LinearCombination& operator*=(const Fr& s) { return scale(s); }

  friend LinearCombination operator+(LinearCombination lc, Variable v) { return lc += v; }
  friend LinearCombination operator-(LinearCombination lc, Variable v) { return lc -= v; }
  // lc + term(coeff, var): the bellman idiom `lc + (coeff, var)`.
  friend LinearCombination operator+(LinearCombination lc, const Term& t) { return lc += t; }
  friend LinearCombination operator-(LinearCombination lc, const Term& t) { return lc -= t; }
  friend LinearCombination operator+(LinearCombination lc, const LinearCombination& o) {
    return lc += o;
  }
  friend LinearCombination operator-(LinearCombination lc, const LinearCombination& o) {
    return lc -= o;
  }
  friend LinearCombination operator*(LinearCombination lc, const Fr& s) { return lc *= s; }
  friend LinearCombination operator*(const Fr& s, LinearCombination lc) { return lc *= s; }

 private:
  SmallVector<Term, kInlineTerms> terms_;
};

inline LinearCombination& LinearCombination::compact() {
  Term* t = terms_.data();
  const std::size_t n = terms_.size();
  const auto key = [](const Term& x) { return pack(x.var); };
  if (n <= 16) {
    for (std::size_t i = 1; i < n; ++i)  // insertion sort for the common short case
      for (std::size_t j = i; j > 0 && key(t[j]) < key(t[j - 1]); --j) std::swap(t[j], t[j - 1]);
  } else {
    std::sort(t, t + n, [&](const Term& x, const Term& y) { return key(x) < key(y); });
  }
  std::size_t out = 0;
  for (std::size_t i = 0; i < n;) {
    Term sum = t[i];
    std::size_t j = i + 1;
    for (; j < n && t[j].var == sum.var; ++j) sum.coeff += t[j].coeff;
    if (!sum.coeff.is_zero()) t[out++] = sum;
    i = j;
  }
  terms_.resize_down(out);
  return *this;
}

// Term{coeff, var} reads better at call sites as term(coeff, var).
inline Term term(const Fr& coeff, Variable v) { return {v, coeff}; }

}  // namespace prooflab::r1cs
