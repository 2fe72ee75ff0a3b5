// BatchAffineAdderX8::flush, the only code compiled for AVX-512 IFMA (by attribute: the
// rest of this file, and the program, runs on any x86-64).
#include "core/msm/batch_affine_x8.hpp"

#include <algorithm>
#include <cstdlib>

#include "core/msm/inverse.hpp"

namespace prooflab::msm {

BatchAffineAdderX8::BatchAffineAdderX8(std::size_t capacity)
    : capacity_(capacity),
      groups_((capacity + kLanes - 1) / kLanes),
      prefix_(groups_.size()),
      den_(groups_.size()),
      dst_(capacity) {
  assert(capacity > 0);
}

#if defined(__x86_64__)

namespace {

using field::FpX8;

PROOFLAB_IFMA_INLINE void keep(const FpX8& v, std::uint64_t (&out)[8][8]) {
  for (std::size_t k = 0; k < 8; ++k) _mm512_store_si512(out[k], v.limb[k]);
}
PROOFLAB_IFMA_INLINE FpX8 kept(const std::uint64_t (&in)[8][8]) {
  FpX8 v;
  for (std::size_t k = 0; k < 8; ++k) v.limb[k] = _mm512_load_si512(in[k]);
  return v;
}

}  // namespace

PROOFLAB_IFMA_TARGET void BatchAffineAdderX8::flush() {
  if (size_ == 0) return;
  const std::size_t groups = (size_ + kLanes - 1) / kLanes;
  // Lanes past the last addition divide 0 by 1; their results are dropped.
  for (std::size_t lane = size_ % kLanes; lane != 0 && lane < kLanes; ++lane) {
    Group& g = groups_[groups - 1];
    for (std::size_t k = 0; k < 6; ++k) {
      g.ax[k][lane] = g.ay[k][lane] = g.by[k][lane] = 0;
      g.bx[k][lane] = Field::one().mont[k];
    }
  }

  // Forward: den = x_b − x_a (or 2y) of every group, and prefix_[g] = the product of the
  // dens of groups < g, per lane.
  FpX8 acc = field::fpx8_splat(Field::one());
  for (std::size_t g = 0; g < groups; ++g) {
    const Group& e = groups_[g];
    FpX8 den = field::fpx8_sub(field::fpx8_load(&e.bx[0][0]), field::fpx8_load(&e.ax[0][0]),
                               field::x8::kP);  // (0, 2p)
    if (e.doubling) [[unlikely]]
      den = field::fpx8_select(e.doubling, den, field::fpx8_load(&e.doubling_den[0][0]));
    keep(den, den_[g].limb);
    keep(acc, prefix_[g].limb);
    acc = field::fpx8_mul(acc, den);
  }

  // The eight lane products, inverted together (Montgomery's trick again, in scalar code).
  alignas(64) std::uint64_t words[6 * kLanes];
  field::fpx8_store(field::fpx8_canonical(acc), words);
  Field lane_product[kLanes], running[kLanes];
  for (std::size_t j = 0; j < kLanes; ++j) {
    for (std::size_t k = 0; k < 6; ++k) lane_product[j].mont[k] = words[kLanes * k + j];
    running[j] = lane_product[j];
    if (j > 0) running[j] *= running[j - 1];
  }
  Field inv = inverse_vartime(running[kLanes - 1]);  // every den is non-zero
  for (std::size_t j = kLanes; j-- > 0;) {
    Field lane_inv = inv;
    if (j > 0) {
      lane_inv *= running[j - 1];
      inv *= lane_product[j];
    }
    for (std::size_t k = 0; k < 6; ++k) words[kLanes * k + j] = lane_inv.mont[k];
  }
  FpX8 inv8 = field::fpx8_load(words);

  // Backward: 1/den of group g from the inverse of its prefix, then the sums.
  for (std::size_t g = groups; g-- > 0;) {
    const Group& e = groups_[g];
    const FpX8 den_inv = field::fpx8_mul(inv8, kept(prefix_[g].limb));
    inv8 = field::fpx8_mul(inv8, kept(den_[g].limb));

    const FpX8 ax = field::fpx8_load(&e.ax[0][0]);
    const FpX8 ay = field::fpx8_negate_where(e.neg_a, field::fpx8_load(&e.ay[0][0]));  // ≤ p
    const FpX8 by = field::fpx8_negate_where(e.neg_b, field::fpx8_load(&e.by[0][0]));
    FpX8 num = field::fpx8_sub(by, ay, field::x8::kP);  // (0, 2p]
    if (e.doubling) [[unlikely]]
      num = field::fpx8_select(e.doubling, num, field::fpx8_load(&e.doubling_num[0][0]));
    const FpX8 lambda = field::fpx8_mul(num, den_inv);
    const FpX8 sum_x = field::fpx8_add(ax, field::fpx8_load(&e.bx[0][0]));
    const FpX8 x3 = field::fpx8_canonical(
        field::fpx8_sub(field::fpx8_mul(lambda, lambda), sum_x, field::x8::k2P));
    const FpX8 y = field::fpx8_mul(field::fpx8_sub(ax, x3, field::x8::kP), lambda);
    const FpX8 y3 = field::fpx8_canonical(field::fpx8_sub(y, ay, field::x8::kP));

    alignas(64) std::uint64_t xw[6 * kLanes], yw[6 * kLanes];
    field::fpx8_store(x3, xw);
    field::fpx8_store(y3, yw);
    const std::size_t lanes = std::min(kLanes, size_ - kLanes * g);
    for (std::size_t j = 0; j < lanes; ++j) {
      Point* d = dst_[kLanes * g + j];
      for (std::size_t k = 0; k < 6; ++k) {
        d->x.mont[k] = xw[kLanes * k + j];
        d->y.mont[k] = yw[kLanes * k + j];
      }
    }
  }
  size_ = 0;
}

#else

void BatchAffineAdderX8::flush() { std::abort(); }  // unreachable: available() is false

#endif

}  // namespace prooflab::msm
