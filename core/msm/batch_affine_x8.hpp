// BatchAffineAdder (batch_affine.hpp) for G1 with eight additions per vector: the same push
// (the terms are copied at push time, here into structure-of-arrays groups of eight), but
// flush() runs the prefix products, the backward pass and the finishing formulas eight lanes
// at a time with AVX-512 IFMA (core/field/fp_x8.hpp). Lane j of group g is pending addition
// 8g + j, so every lane runs its own prefix chain and the eight chain products share one
// scalar inversion. Per addition that is still 5M + 1S, but at ~2.7× the multiplication
// throughput of the scalar CIOS (results/2026-11-30-msm-cpu.md). segment_sum.hpp picks it for
// G1 where the CPU has IFMA and MsmConfig::simd is on.
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
    AffineAddTerms<Field> t;
    Field den;
    if (!affine_add_terms(a, neg_a, b, neg_b, dst, t, den)) return;
    Group& g = groups_[size_ / kLanes];
    const std::size_t lane = size_ % kLanes;
    for (std::size_t k = 0; k < 6; ++k) {
      g.ax[k][lane] = t.ax.mont[k];
      g.ay[k][lane] = t.ay.mont[k];
      g.bx[k][lane] = t.bx.mont[k];
      g.num[k][lane] = t.num.mont[k];
      g.den[k][lane] = den.mont[k];
    }
    dst_[size_] = dst;
    if (++size_ == capacity_) flush();
  }

  // Completes every pending addition. Needs available().
  void flush();

  std::size_t capacity() const { return capacity_; }

 private:
  // Eight pending additions; word k of lane j of each term at [k][j] (fpx8_load's layout).
  struct alignas(64) Group {
    std::uint64_t ax[6][kLanes], ay[6][kLanes], bx[6][kLanes], num[6][kLanes], den[6][kLanes];
  };
  // An FpX8 kept between the two passes (limb k of lane j at [k][j]).
  struct alignas(64) LaneLimbs {
    std::uint64_t limb[8][kLanes];
  };

  std::size_t capacity_;
  std::vector<Group> groups_;
  std::vector<LaneLimbs> prefix_;
  std::vector<Point*> dst_;
  std::size_t size_ = 0;
};

}  // namespace prooflab::msm
