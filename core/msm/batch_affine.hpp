// Many independent affine additions with one field inversion (Montgomery's trick). An affine
// addition is λ = (y2 − y1)/(x2 − x1), x3 = λ² − x1 − x2, y3 = λ(x1 − x3) − y1: with the
// inversion shared by a batch of a few thousand it costs 5M + 1S (three of them for the
// batch inversion), about half of a Jacobian mixed addition (7M + 4S). This is the "batch
// affine" accumulation of gnark-crypto and of the ZPrize CPU MSM entries.
//
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/curve/affine.hpp"
#include "core/field/mont.hpp"
#include "core/msm/inverse.hpp"

namespace prooflab::msm {

// What an affine addition needs besides den once 1/den is known: λ = num/den,
// x3 = λ² − ax − bx, y3 = λ(ax − x3) − ay.
template <class Field>
struct AffineAddTerms {
  Field ax, ay, bx, num;  // ay signed; num = y_b − y_a (den = x_b − x_a), or 3x² (den = 2y)
};

// The terms and den of ±a + ±b, or false when the sum needs no inversion and was written to
// *dst (an operand at infinity, P + (−P)). Shared by every batch adder.
template <class Point, class Field>
PROOFLAB_INLINE bool affine_add_terms(const Point* a, bool neg_a, const Point* b, bool neg_b,
                                      Point* dst, AffineAddTerms<Field>& t, Field& den) {
  if (a->is_infinity() || b->is_infinity()) [[unlikely]] {
    *dst = a->is_infinity() ? (neg_b ? -*b : *b) : (neg_a ? -*a : *a);
    return false;
  }
  den = b->x;
  den -= a->x;
  t.ay = neg_a ? -a->y : a->y;
  const Field yb = neg_b ? -b->y : b->y;
  if (den.is_zero()) [[unlikely]] {
    if (!(t.ay == yb) || yb.is_zero()) {  // P + (−P); a 2-torsion P doubles to O
      *dst = Point::infinity();
      return false;
    }
    const Field xx = a->x.square();  // doubling: λ = 3x² / 2y
    t.num = xx.dbl();
    t.num += xx;
    den = yb.dbl();
  } else {
    t.num = yb;
    t.num -= t.ay;
  }
  t.ax = a->x;
  t.bx = b->x;
  return true;
}

template <class Curve>
class BatchAffineAdder {
 public:
  using Field = typename Curve::Field;
  using Point = curve::Affine<Curve>;

  explicit BatchAffineAdder(std::size_t capacity)
      : pending_(capacity), prefix_(capacity), den_(capacity) {
    assert(capacity > 0);
  }

  // *dst = ±a + ±b (negated where neg_a / neg_b), now (an operand at infinity, P + (−P)) or
  // at the next flush(), which may happen inside this call. The operands are read here;
  // dst must stay valid and unread until the flush.
  void push(const Point* a, bool neg_a, const Point* b, bool neg_b, Point* dst) {
    Pending& e = pending_[size_];
    if (!affine_add_terms(a, neg_a, b, neg_b, dst, e.terms, den_[size_])) return;
    e.dst = dst;
    if (++size_ == pending_.size()) flush();
  }

  // Completes every pending addition. Compound assignments throughout: they are always
  // inlined, the binary operators are not.
  void flush() {
    if (size_ == 0) return;
    Field acc = den_[0];
    for (std::size_t i = 1; i < size_; ++i) {
      prefix_[i] = acc;
      acc *= den_[i];
    }
    Field inv = inverse_vartime(acc);  // non-zero: every denominator is
    for (std::size_t i = size_; i-- > 1;) {
      Field den_inv = inv;
      den_inv *= prefix_[i];
      inv *= den_[i];
      finish(pending_[i], den_inv);
    }
    finish(pending_[0], inv);
    size_ = 0;
  }

  std::size_t capacity() const { return pending_.size(); }

 private:
  struct Pending {
    AffineAddTerms<Field> terms;
    Point* dst;
  };

  static void finish(const Pending& e, const Field& den_inv) {
    const AffineAddTerms<Field>& t = e.terms;
    Field lambda = t.num;
    lambda *= den_inv;
    Field x3 = lambda.square();
    x3 -= t.ax;
    x3 -= t.bx;
    Field y3 = t.ax;
    y3 -= x3;
    y3 *= lambda;
    y3 -= t.ay;
    e.dst->x = x3;
    e.dst->y = y3;
  }

  std::vector<Pending> pending_;
  std::vector<Field> prefix_, den_;
  std::size_t size_ = 0;
};

}  // namespace prooflab::msm
