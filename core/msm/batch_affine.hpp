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

// How a batch adder computes ±a + ±b.
enum class AffineAddCase {
  kDone,      // already written to *dst: an operand at infinity, or P + (−P)
  kDoubling,  // equal points: λ = 3x²/2y (doubling_terms)
  kGeneral,   // distinct x: λ = (y_b − y_a)/(x_b − x_a)
};

// Shared by every batch adder: sorts out the sums that need no inversion (and writes them).
template <class Point>
PROOFLAB_INLINE AffineAddCase classify_affine_add(const Point* a, bool neg_a, const Point* b,
                                                  bool neg_b, Point* dst) {
  if (a->is_infinity() || b->is_infinity()) [[unlikely]] {
    *dst = a->is_infinity() ? (neg_b ? -*b : *b) : (neg_a ? -*a : *a);
    return AffineAddCase::kDone;
  }
  if (!(a->x == b->x)) [[likely]]
    return AffineAddCase::kGeneral;
  // b = ±a: the signed points are equal iff their signed y are.
  const auto ya = neg_a ? -a->y : a->y, yb = neg_b ? -b->y : b->y;
  if (!(ya == yb) || yb.is_zero()) {  // P + (−P); a 2-torsion P doubles to O
    *dst = Point::infinity();
    return AffineAddCase::kDone;
  }
  return AffineAddCase::kDoubling;
}

// λ = num/den of the doubling of ±a: num = 3x², den = 2y (y signed).
template <class Point, class Field>
void doubling_terms(const Point* a, bool neg_a, Field& num, Field& den) {
  const Field xx = a->x.square();
  num = xx.dbl();
  num += xx;
  den = (neg_a ? -a->y : a->y).dbl();
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
    const AffineAddCase c = classify_affine_add(a, neg_a, b, neg_b, dst);
    if (c == AffineAddCase::kDone) return;
    Pending& e = pending_[size_];
    Field& den = den_[size_];
    e.ay = neg_a ? -a->y : a->y;
    if (c == AffineAddCase::kDoubling) [[unlikely]] {
      doubling_terms(a, neg_a, e.num, den);
    } else {
      den = b->x;
      den -= a->x;
      e.num = neg_b ? -b->y : b->y;
      e.num -= e.ay;
    }
    e.ax = a->x;
    e.bx = b->x;
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
    Field ax, ay, bx, num;  // ay signed; num = y_b − y_a, or 3x² when doubling
    Point* dst;
  };

  static void finish(const Pending& e, const Field& den_inv) {
    Field lambda = e.num;
    lambda *= den_inv;
    Field x3 = lambda.square();
    x3 -= e.ax;
    x3 -= e.bx;
    Field y3 = e.ax;
    y3 -= x3;
    y3 *= lambda;
    y3 -= e.ay;
    e.dst->x = x3;
    e.dst->y = y3;
  }

  std::vector<Pending> pending_;
  std::vector<Field> prefix_, den_;
  std::size_t size_ = 0;
};

}  // namespace prooflab::msm
