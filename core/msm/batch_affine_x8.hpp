// BatchAffineAdder (batch_affine.hpp) with eight additions per vector, for G1 and G2. push()
// only sorts out the special cases (classify_affine_add) and copies the raw coordinates and
// signs into structure-of-arrays groups of eight; flush() runs everything else eight lanes
// at a time with AVX-512 IFMA (core/field/fp_x8.hpp, fp2_x8.hpp): the signs, x_b − x_a and
// y_b − y_a, the prefix products, the backward pass and the finishing formulas. Lane j of
// group g is pending addition 8g + j, so every lane runs its own prefix chain and the eight
// chain products share one scalar inversion. Per addition that is still 5M + 1S, at about a
// sixth of the scalar multiplication's cost (docs/msm.md). segment_sum.hpp picks it where
// the CPU has IFMA and MsmConfig::simd is on.
#pragma once

#include <array>
#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/curve/affine.hpp"
#include "core/field/fp_x8.hpp"
#include "core/msm/batch_affine.hpp"

namespace prooflab::msm {

template <class Curve>
class BatchAffineAdderX8 {
 public:
  using Field = typename Curve::Field;
  using Point = curve::Affine<Curve>;
  static constexpr std::size_t kLanes = 8;
  static constexpr std::size_t kWords = sizeof(Field) / 8;  // 6 (Fp) or 12 (Fp2)

  explicit BatchAffineAdderX8(std::size_t capacity)
      : capacity_(capacity),
        groups_((capacity + kLanes - 1) / kLanes),
        prefix_(groups_.size()),
        den_(groups_.size()),
        dst_(capacity) {
    assert(capacity > 0);
  }

  static bool available() { return field::ifma_available(); }

  // As BatchAffineAdder::push.
  void push(const Point* a, bool neg_a, const Point* b, bool neg_b, Point* dst) {
    const AffineAddCase c = classify_affine_add(a, neg_a, b, neg_b, dst);
    if (c == AffineAddCase::kDone) return;
    Group& g = groups_[size_ / kLanes];
    const std::size_t lane = size_ % kLanes;
    if (lane == 0) g.neg_a = g.neg_b = g.doubling = 0;
    const auto bit = static_cast<std::uint8_t>(1u << lane);
    scatter(a->x, g.ax, lane);
    scatter(a->y, g.ay, lane);
    scatter(b->x, g.bx, lane);
    scatter(b->y, g.by, lane);
    if (neg_a) g.neg_a |= bit;
    if (neg_b) g.neg_b |= bit;
    if (c == AffineAddCase::kDoubling) [[unlikely]] {
      Field num, den;
      doubling_terms(a, neg_a, num, den);
      scatter(num, g.doubling_num, lane);
      scatter(den, g.doubling_den, lane);
      g.doubling |= bit;
    }
    dst_[size_] = dst;
    if (++size_ == capacity_) flush();
  }

  // Completes every pending addition. Needs available().
  void flush();

  std::size_t capacity() const { return capacity_; }

 private:
  using Words = std::uint64_t[kWords][kLanes];  // word k of lane j at [k][j]

  // Eight pending additions, in the layout the vector loads read. The y are unsigned: lane
  // j's sign is bit j of neg_a / neg_b. Lanes with their bit in `doubling` take num and den
  // from doubling_num / doubling_den.
  struct alignas(64) Group {
    Words ax, ay, bx, by, doubling_num, doubling_den;
    std::uint8_t neg_a, neg_b, doubling;
  };
  // A vector value kept between the two passes: 8 limb registers per Fp.
  struct alignas(64) LaneLimbs {
    std::uint64_t limb[8 * kWords / 6][kLanes];
  };

  static void scatter(const Field& v, Words& out, std::size_t lane) {
    const auto w = std::bit_cast<std::array<std::uint64_t, kWords>>(v);
    for (std::size_t k = 0; k < kWords; ++k) out[k][lane] = w[k];
  }

  std::size_t capacity_;
  std::vector<Group> groups_;
  std::vector<LaneLimbs> prefix_, den_;
  std::vector<Point*> dst_;
  std::size_t size_ = 0;
};

}  // namespace prooflab::msm
