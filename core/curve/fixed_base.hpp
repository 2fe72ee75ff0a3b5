// Fixed-base scalar multiplication with window tables: for a base G and window width w,
// table[j][d-1] = d·2^(w·j)·G (affine) for d = 1..2^w-1, so k·G is one mixed addition per
// non-zero w-bit digit of k — ⌈255/w⌉ additions and no doublings. This is what makes SRS
// generation (millions of multiples of g1 and g2) fast.
#pragma once

#include <span>
#include <vector>

#include "core/curve/jacobian.hpp"
#include "core/field/fr.hpp"
#include "core/parallel/thread_pool.hpp"

namespace prooflab::curve {

template <class Curve>
class FixedBaseTable {
 public:
  FixedBaseTable(const Affine<Curve>& base, unsigned window_bits = 8)
      : w_(window_bits), windows_((field::FrParams::kBits + w_ - 1) / w_) {
    const std::size_t per = (std::size_t{1} << w_) - 1;
    std::vector<Jacobian<Curve>> jac(windows_ * per);
    Jacobian<Curve> window_base = Jacobian<Curve>::from_affine(base);
    for (std::size_t j = 0; j < windows_; ++j) {
      Jacobian<Curve> acc = window_base;
      for (std::size_t d = 0; d < per; ++d) {
        jac[j * per + d] = acc;
        acc = acc.add(window_base);
      }
      window_base = acc;  // 2^w · (previous window base)
    }
    table_.resize(jac.size());
    batch_to_affine<Curve>(jac, table_);
  }

  Jacobian<Curve> mul(const field::Fr& k) const {
    const auto limbs = k.to_canonical();
    const std::size_t per = (std::size_t{1} << w_) - 1;
    auto acc = Jacobian<Curve>::infinity();
    for (std::size_t j = 0; j < windows_; ++j) {
      const std::size_t digit = extract(limbs, j * w_);
      if (digit) acc = acc.add_mixed(table_[j * per + digit - 1]);
    }
    return acc;
  }

  // out[i] = scalars[i]·G, normalised to affine in batches (one inversion per chunk).
  void mul_batch(std::span<const field::Fr> scalars, std::span<Affine<Curve>> out,
                 parallel::ThreadPool& pool) const {
    pool.parallel_for(scalars.size(), 1024, [&](std::size_t begin, std::size_t end) {
      std::vector<Jacobian<Curve>> jac(end - begin);
      for (std::size_t i = begin; i < end; ++i) jac[i - begin] = mul(scalars[i]);
      batch_to_affine<Curve>(jac, out.subspan(begin, end - begin));
    });
  }

 private:
  std::size_t extract(const field::BigInt<4>& k, std::size_t bit) const {
    const std::size_t limb = bit / 64, shift = bit % 64;
    std::uint64_t v = k[limb] >> shift;
    if (shift + w_ > 64 && limb + 1 < 4) v |= k[limb + 1] << (64 - shift);
    return static_cast<std::size_t>(v & ((std::uint64_t{1} << w_) - 1));
  }

  unsigned w_;
  std::size_t windows_;
  std::vector<Affine<Curve>> table_;
};

}  // namespace prooflab::curve
