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
      dst_(capacity) {
  assert(capacity > 0);
}

#if defined(__x86_64__)

PROOFLAB_IFMA_TARGET void BatchAffineAdderX8::flush() {
  using field::FpX8;
  if (size_ == 0) return;
  const std::size_t groups = (size_ + kLanes - 1) / kLanes;
  // Lanes past the last addition divide 0 by 1; their results are dropped.
  for (std::size_t lane = size_ % kLanes; lane != 0 && lane < kLanes; ++lane) {
    Group& g = groups_[groups - 1];
    for (std::size_t k = 0; k < 6; ++k) {
      g.ax[k][lane] = g.ay[k][lane] = g.bx[k][lane] = g.num[k][lane] = 0;
      g.den[k][lane] = Field::one().mont[k];
    }
  }

  // Forward: prefix_[g] = the product of the dens of groups < g, per lane.
  FpX8 acc = field::fpx8_splat(Field::one());
  for (std::size_t g = 0; g < groups; ++g) {
    for (std::size_t k = 0; k < 8; ++k) _mm512_store_si512(prefix_[g].limb[k], acc.limb[k]);
    acc = field::fpx8_mul(acc, field::fpx8_load(&groups_[g].den[0][0]));
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
    FpX8 prefix;
    for (std::size_t k = 0; k < 8; ++k) prefix.limb[k] = _mm512_load_si512(prefix_[g].limb[k]);
    const FpX8 den_inv = field::fpx8_mul(inv8, prefix);
    inv8 = field::fpx8_mul(inv8, field::fpx8_load(&e.den[0][0]));

    const FpX8 ax = field::fpx8_load(&e.ax[0][0]);
    const FpX8 lambda = field::fpx8_mul(field::fpx8_load(&e.num[0][0]), den_inv);
    const FpX8 sum_x = field::fpx8_add(ax, field::fpx8_load(&e.bx[0][0]));
    const FpX8 x3 = field::fpx8_canonical(
        field::fpx8_sub(field::fpx8_mul(lambda, lambda), sum_x, field::x8::k2P));
    const FpX8 y = field::fpx8_mul(field::fpx8_sub(ax, x3, field::x8::kP), lambda);
    const FpX8 y3 =
        field::fpx8_canonical(field::fpx8_sub(y, field::fpx8_load(&e.ay[0][0]), field::x8::kP));

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
