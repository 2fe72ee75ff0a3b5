// BatchAffineAdderX8::flush for G1 and G2, the only code compiled for AVX-512 IFMA (by
// attribute: the rest of this file, and the program, runs on any x86-64).
#include "core/msm/batch_affine_x8.hpp"

#include <algorithm>
#include <cstdlib>

#include "core/curve/g1.hpp"
#include "core/curve/g2.hpp"
#include "core/field/fp2_x8.hpp"
#include "core/msm/inverse.hpp"

namespace prooflab::msm {

#if defined(__x86_64__)

namespace {

// The eight-lane type of a curve's coordinate field.
template <class Field>
struct Lanes;
template <>
struct Lanes<field::Fp> {
  using type = field::FpX8;
};
template <>
struct Lanes<field::Fp2> {
  using type = field::Fp2X8;
};

// A vector value's registers to and from memory (LaneLimbs), as raw 64-byte blocks.
template <class Vec, class Storage>
PROOFLAB_IFMA_INLINE void keep(const Vec& v, Storage& out) {
  static_assert(sizeof(Vec) == sizeof(out.limb));
  const auto* r = reinterpret_cast<const __m512i*>(&v);
  for (std::size_t k = 0; k < sizeof(Vec) / 64; ++k) _mm512_store_si512(out.limb[k], r[k]);
}
template <class Vec, class Storage>
PROOFLAB_IFMA_INLINE Vec kept(const Storage& in) {
  Vec v;
  auto* r = reinterpret_cast<__m512i*>(&v);
  for (std::size_t k = 0; k < sizeof(Vec) / 64; ++k) r[k] = _mm512_load_si512(in.limb[k]);
  return v;
}

// One out-of-line multiplication (and squaring) per vector type: inlined six times, the
// flush loops outgrow the decoded-op cache and their speed then depends on code layout
// (the same source measured 100 and 145 ms for BM_msm_g1/16 in two builds).
template <class Vec>
PROOFLAB_IFMA_TARGET __attribute__((noinline)) Vec mul(const Vec& a, const Vec& b) {
  return x8_mul(a, b);
}
template <class Vec>
PROOFLAB_IFMA_TARGET __attribute__((noinline)) Vec sqr(const Vec& a) {
  return x8_sqr(a);
}

}  // namespace

template <class Curve>
PROOFLAB_IFMA_TARGET void BatchAffineAdderX8<Curve>::flush() {
  using Vec = typename Lanes<Field>::type;
  using field::x8::k2P;
  using field::x8::kP;
  if (size_ == 0) return;
  const std::size_t groups = (size_ + kLanes - 1) / kLanes;
  // Lanes past the last addition divide 0 by 1; their results are dropped.
  for (std::size_t lane = size_ % kLanes; lane != 0 && lane < kLanes; ++lane) {
    Group& g = groups_[groups - 1];
    scatter(Field{}, g.ax, lane);
    scatter(Field{}, g.ay, lane);
    scatter(Field{}, g.by, lane);
    scatter(Field::one(), g.bx, lane);
  }

  // Forward: den = x_b − x_a (or 2y) of every group, and prefix_[g] = the product of the
  // dens of groups < g, per lane.
  Vec acc = Vec::splat(Field::one());
  for (std::size_t g = 0; g < groups; ++g) {
    const Group& e = groups_[g];
    Vec den = x8_sub(Vec::load(&e.bx[0][0]), Vec::load(&e.ax[0][0]), kP);  // (0, 2p)
    if (e.doubling) [[unlikely]]
      den = x8_select(e.doubling, den, Vec::load(&e.doubling_den[0][0]));
    keep(den, den_[g]);
    keep(acc, prefix_[g]);
    acc = mul(acc, den);
  }

  // The eight lane products, inverted together (Montgomery's trick again, in scalar code).
  alignas(64) std::uint64_t words[kWords * kLanes];
  x8_store(x8_canonical(acc), words);
  Field lane_product[kLanes], running[kLanes];
  for (std::size_t j = 0; j < kLanes; ++j) {
    std::array<std::uint64_t, kWords> w;
    for (std::size_t k = 0; k < kWords; ++k) w[k] = words[kLanes * k + j];
    lane_product[j] = std::bit_cast<Field>(w);
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
    const auto w = std::bit_cast<std::array<std::uint64_t, kWords>>(lane_inv);
    for (std::size_t k = 0; k < kWords; ++k) words[kLanes * k + j] = w[k];
  }
  Vec inv8 = Vec::load(words);

  // Backward: 1/den of group g from the inverse of its prefix, then the sums.
  for (std::size_t g = groups; g-- > 0;) {
    const Group& e = groups_[g];
    const Vec den_inv = mul(inv8, kept<Vec>(prefix_[g]));
    inv8 = mul(inv8, kept<Vec>(den_[g]));

    const Vec ax = Vec::load(&e.ax[0][0]);
    const Vec ay = x8_negate_where(e.neg_a, Vec::load(&e.ay[0][0]));  // ≤ p
    const Vec by = x8_negate_where(e.neg_b, Vec::load(&e.by[0][0]));
    Vec num = x8_sub(by, ay, kP);  // (0, 2p]
    if (e.doubling) [[unlikely]]
      num = x8_select(e.doubling, num, Vec::load(&e.doubling_num[0][0]));
    const Vec lambda = mul(num, den_inv);
    const Vec sum_x = x8_add(ax, Vec::load(&e.bx[0][0]));
    const Vec x3 = x8_canonical(x8_sub(sqr(lambda), sum_x, k2P));
    const Vec y = mul(x8_sub(ax, x3, kP), lambda);
    const Vec y3 = x8_canonical(x8_sub(y, ay, kP));

    alignas(64) std::uint64_t xw[kWords * kLanes], yw[kWords * kLanes];
    x8_store(x3, xw);
    x8_store(y3, yw);
    const std::size_t lanes = std::min(kLanes, size_ - kLanes * g);
    for (std::size_t j = 0; j < lanes; ++j) {
      std::array<std::uint64_t, kWords> x, y_words;
      for (std::size_t k = 0; k < kWords; ++k) {
        x[k] = xw[kLanes * k + j];
        y_words[k] = yw[kLanes * k + j];
      }
      Point* d = dst_[kLanes * g + j];
      d->x = std::bit_cast<Field>(x);
      d->y = std::bit_cast<Field>(y_words);
    }
  }
  size_ = 0;
}

#else

template <class Curve>
void BatchAffineAdderX8<Curve>::flush() {
  std::abort();  // unreachable: available() is false
}

#endif

template class BatchAffineAdderX8<curve::G1Curve>;
template class BatchAffineAdderX8<curve::G2Curve>;

}  // namespace prooflab::msm
