// Sums of Fr values and of Fr products without a modular reduction per term, for the sparse
// products A·w, B·w, C·w (evaluate.cpp), where a row adds up a few to a few thousand terms
// and only the row's total has to be reduced.
//
// Both work on Montgomery representatives (x·R mod r, R = 2^256) as plain integers.
// Montgomery form is linear, so a sum of representatives reduced mod r is the representative
// of the sum; a product of two representatives is (a·R)(b·R), which one Montgomery reduction
// (÷R) turns into the representative a·b·R of the product.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/field/bigint.hpp"
#include "core/field/fr.hpp"

namespace prooflab::r1cs {

namespace lazy_sum_detail {

using field::Fr;
using Limbs = Fr::Limbs;

// 2^256 mod r = 2^256 - 2r (2r < 2^256 < 3r), as a plain integer.
constexpr Limbs two_pow_256_mod_r() {
  Limbs k{};  // 0 - 2r mod 2^256
  field::bigint_sub(k, Fr::kModulus);
  field::bigint_sub(k, Fr::kModulus);
  return k;
}
static_assert(field::bigint_compare(two_pow_256_mod_r(), Fr::kModulus) < 0);

// 2^(64·k) mod r as a plain integer, k ≥ 4: doubling the element whose representative is x
// gives the representative 2x mod r, so 64 doublings multiply the plain integer by 2^64.
constexpr Limbs two_pow_64k_mod_r(unsigned k) {
  Fr x = Fr::from_mont(two_pow_256_mod_r());
  for (unsigned i = 4 * 64; i < 64 * k; ++i) x = x.dbl();
  return x.mont;
}

// v -= r when v ≥ r, without a branch.
PROOFLAB_INLINE void subtract_modulus_if_above(Limbs& v) {
  Limbs t = v;
  const std::uint64_t keep = 0 - field::bigint_sub(t, Fr::kModulus);
  field::bigint_select(v, keep, v, t);
}

}  // namespace lazy_sum_detail

// Σ x_i over representatives x_i < r: 256 bits and the number of carries out of them. An
// addition is one add/adc chain, with no compare-and-subtract on the row's dependency chain.
class LazySum {
 public:
  using Limbs = field::Fr::Limbs;

  PROOFLAB_INLINE void add(const Limbs& x) { carries_ += field::bigint_add(low_, x); }
  PROOFLAB_INLINE void add(const field::Fr& x) { add(x.mont); }

  // The sum mod r, given the number of terms added: one term is reduced already and two
  // are below 2r (most rows of A, B and C have one or two terms). Zero terms: zero.
  PROOFLAB_INLINE field::Fr reduce(std::uint64_t terms) const {
    using namespace lazy_sum_detail;
    if (terms <= 1) return Fr::from_mont(low_);
    Limbs v = low_;
    subtract_modulus_if_above(v);
    if (terms == 2) return Fr::from_mont(v);
    subtract_modulus_if_above(v);  // low < 2^256 < 3r
    Fr sum = Fr::from_mont(v);
    // carries·2^256 ≡ carries·(2^256 mod r): the element whose representative is carries
    // (< r), times the one whose representative is (2^256 mod r)·R.
    if (carries_ != 0) [[unlikely]]
      sum += Fr::from_mont(Limbs{carries_, 0, 0, 0}) * kTwoPow256;
    return sum;
  }

 private:
  static constexpr field::Fr kTwoPow256 =
      field::Fr::from_canonical(lazy_sum_detail::two_pow_256_mod_r());

  Limbs low_{};
  std::uint64_t carries_ = 0;
};

// Σ a_i·b_i over representatives a_i, b_i < r: the 512-bit products are added into nine
// limbs (carries past 2^512 in the ninth), and reduce() folds the top three limbs with
// 2^(64k) mod r and runs one Montgomery reduction. A term costs the 16 multiplications of
// the schoolbook product instead of the 32 of a Montgomery multiplication. At most 2^64
// terms.
class WideSum {
 public:
  using Limbs = field::Fr::Limbs;

  PROOFLAB_INLINE void add_product(const Limbs& a, const Limbs& b) {
    field::BigInt<8> p{};
    for (std::size_t i = 0; i < 4; ++i) {
      std::uint64_t carry = 0;
      for (std::size_t j = 0; j < 4; ++j) {
        const field::u128 t = static_cast<field::u128>(a[i]) * b[j] + p[i + j] + carry;
        p[i + j] = static_cast<std::uint64_t>(t);
        carry = static_cast<std::uint64_t>(t >> 64);
      }
      p[i + 4] = carry;
    }
    top_ += field::bigint_add(low_, p);
  }
  PROOFLAB_INLINE void add_product(const field::Fr& a, const field::Fr& b) {
    add_product(a.mont, b.mont);
  }

  // (Σ a_i·b_i)·R^-1 mod r: the representative of the sum of the products.
  field::Fr reduce() const {
    using namespace lazy_sum_detail;
    // T = low + top·2^512 ≡ low[0..5] + low[6]·F6 + low[7]·F7 + top·F8 =: T' < 2^385, with
    // F_k = 2^(64k) mod r.
    field::BigInt<7> t{};
    for (std::size_t i = 0; i < 6; ++i) t[i] = low_[i];
    const std::uint64_t high[3] = {low_[6], low_[7], top_};
    for (std::size_t k = 0; k < 3; ++k) {
      const Limbs& f = kFold[k];
      std::uint64_t carry = 0;
      for (std::size_t j = 0; j < 4; ++j) {
        const field::u128 s = static_cast<field::u128>(high[k]) * f[j] + t[j] + carry;
        t[j] = static_cast<std::uint64_t>(s);
        carry = static_cast<std::uint64_t>(s >> 64);
      }
      for (std::size_t j = 4; j < 7; ++j) {
        const field::u128 s = static_cast<field::u128>(t[j]) + carry;
        t[j] = static_cast<std::uint64_t>(s);
        carry = static_cast<std::uint64_t>(s >> 64);
      }
    }
    // Montgomery reduction of T' (< r·R): (T' + m·r)/R < 2^129 + r < 2r.
    field::BigInt<8> u{};
    for (std::size_t i = 0; i < 7; ++i) u[i] = t[i];
    for (std::size_t i = 0; i < 4; ++i) {
      const std::uint64_t m = u[i] * field::FrParams::kInv;
      std::uint64_t carry = 0;
      for (std::size_t j = 0; j < 4; ++j) {
        const field::u128 s = static_cast<field::u128>(m) * Fr::kModulus[j] + u[i + j] + carry;
        u[i + j] = static_cast<std::uint64_t>(s);
        carry = static_cast<std::uint64_t>(s >> 64);
      }
      for (std::size_t j = i + 4; j < 8 && carry != 0; ++j) {
        const field::u128 s = static_cast<field::u128>(u[j]) + carry;
        u[j] = static_cast<std::uint64_t>(s);
        carry = static_cast<std::uint64_t>(s >> 64);
      }
    }
    Limbs v = {u[4], u[5], u[6], u[7]};
    subtract_modulus_if_above(v);
    return Fr::from_mont(v);
  }

 private:
  static constexpr Limbs kFold[3] = {lazy_sum_detail::two_pow_64k_mod_r(6),
                                     lazy_sum_detail::two_pow_64k_mod_r(7),
                                     lazy_sum_detail::two_pow_64k_mod_r(8)};

  field::BigInt<8> low_{};
  std::uint64_t top_ = 0;
};

}  // namespace prooflab::r1cs
