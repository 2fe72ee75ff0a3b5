// BatchAffineAdder (batch_affine.hpp) for G1 with eight additions per vector. push() only
// sorts out the special cases (classify_affine_add) and copies the raw coordinates and signs
// into structure-of-arrays groups of eight; flush() runs everything else eight lanes at a
// time with AVX-512 IFMA (core/field/fp_x8.hpp): the signs, x_b − x_a and y_b − y_a, the
// prefix products, the backward pass and the finishing formulas. Lane j of group g is
// pending addition 8g + j, so every lane runs its own prefix chain and the eight chain
// products share one scalar inversion. Per addition that is still 5M + 1S, at about a third
// of the scalar multiplication's cost (results/2026-11-30-msm-cpu.md). segment_sum.hpp picks
// it for G1 where the CPU has IFMA and MsmConfig::simd is on.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/curve/g1.hpp"
#include "core/field/fp_x8.hpp"
#include "core/msm/batch_affine.hpp"

namespace prooflab::msm {

class BatchAffineAdderX8 {
 public:
  using Field = field::Fp;
  using Point = curve::G1Affine;
  static constexpr std::size_t kLanes = 8;

  explicit BatchAffineAdderX8(std::size_t capacity);

  static bool available() { return field::ifma_available(); }

  // As BatchAffineAdder::push.
  void push(const Point* a, bool neg_a, const Point* b, bool neg_b, Point* dst) {
    const AffineAddCase c = classify_affine_add(a, neg_a, b, neg_b, dst);
    if (c == AffineAddCase::kDone) return;
    Group& g = groups_[size_ / kLanes];
    const std::size_t lane = size_ % kLanes;
    if (lane == 0) g.neg_a = g.neg_b = g.doubling = 0;
    const auto bit = static_cast<std::uint8_t>(1u << lane);
    for (std::size_t k = 0; k < 6; ++k) {
      g.ax[k][lane] = a->x.mont[k];
      g.ay[k][lane] = a->y.mont[k];
      g.bx[k][lane] = b->x.mont[k];
      g.by[k][lane] = b->y.mont[k];
    }
    if (neg_a) g.neg_a |= bit;
    if (neg_b) g.neg_b |= bit;
    if (c == AffineAddCase::kDoubling) [[unlikely]] {
      Field num, den;
      doubling_terms(a, neg_a, num, den);
      for (std::size_t k = 0; k < 6; ++k) {
        g.doubling_num[k][lane] = num.mont[k];
        g.doubling_den[k][lane] = den.mont[k];
      }
      g.doubling |= bit;
    }
    dst_[size_] = dst;
    if (++size_ == capacity_) flush();
  }

  // Completes every pending addition. Needs available().
  void flush();

  std::size_t capacity() const { return capacity_; }

 private:
  // Eight pending additions; word k of lane j of each coordinate at [k][j] (fpx8_load's
  // layout). The y are unsigned: lane j's sign is bit j of neg_a / neg_b. Lanes with their
  // bit in `doubling` take num and den from doubling_num / doubling_den.
  struct alignas(64) Group {
    std::uint64_t ax[6][kLanes], ay[6][kLanes], bx[6][kLanes], by[6][kLanes];
    std::uint64_t doubling_num[6][kLanes], doubling_den[6][kLanes];
    std::uint8_t neg_a, neg_b, doubling;
  };
  // An FpX8 kept between the two passes (limb k of lane j at [k][j]).
  struct alignas(64) LaneLimbs {
    std::uint64_t limb[8][kLanes];
  };

  std::size_t capacity_;
  std::vector<Group> groups_;
  std::vector<LaneLimbs> prefix_, den_;
  std::vector<Point*> dst_;
  std::size_t size_ = 0;
};

}  // namespace prooflab::msm
