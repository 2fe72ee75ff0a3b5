// Variable-time field inversion by Bernstein–Yang divsteps ("Fast constant-time gcd
// computation and modular inversion", 2019), in the variable-time form with 62 divsteps per
// matrix as explained in libsecp256k1's doc/safegcd_implementation.md. Each batch of
// affine additions pays one inversion; Fermat's a^(p−2) costs ~570 multiplications, this
// about a tenth of that, which matters for the small batches at the top of the bucket trees.
//
// Variable time is fine here: MSM inputs (bases, and the bucket sums derived from them) are
// not secret in this tool. Numbers are held as L signed limbs of 62 bits,
// value = Σ v[i]·2^(62 i), wide enough for the signed intermediates (|value| < 2^(62 L − 1)).
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>

#include "core/field/fp2.hpp"
#include "core/field/mont.hpp"

namespace prooflab::msm {

namespace safegcd {

using i128 = __int128;
inline constexpr std::int64_t kMask62 = static_cast<std::int64_t>(~std::uint64_t{0} >> 2);

template <std::size_t L>
using Signed62 = std::array<std::int64_t, L>;

// The 2x2 matrix of 62 divsteps: it maps (f, g) to 2^62·(f', g').
struct Matrix {
  std::int64_t u, v, q, r;
};

// 64-bit limbs (value < 2^(62 L − 1)) to signed-62 limbs.
template <std::size_t L, std::size_t N>
constexpr Signed62<L> to_signed62(const field::BigInt<N>& a) {
  Signed62<L> out{};
  for (std::size_t i = 0; i < L; ++i) {
    const std::size_t bit = 62 * i, limb = bit / 64, shift = bit % 64;
    std::uint64_t v = limb < N ? a[limb] >> shift : 0;
    if (shift > 2 && limb + 1 < N) v |= a[limb + 1] << (64 - shift);
    out[i] = static_cast<std::int64_t>(v & static_cast<std::uint64_t>(kMask62));
  }
  return out;
}

// Normalised signed-62 limbs (each in [0, 2^62)) back to 64-bit limbs.
template <std::size_t N, std::size_t L>
constexpr field::BigInt<N> from_signed62(const Signed62<L>& a) {
  field::BigInt<N> out{};
  for (std::size_t i = 0; i < L; ++i) {
    const std::size_t bit = 62 * i, limb = bit / 64, shift = bit % 64;
    const std::uint64_t v = static_cast<std::uint64_t>(a[i]);
    if (limb < N) out[limb] |= v << shift;
    if (shift > 2 && limb + 1 < N) out[limb + 1] |= v >> (64 - shift);
  }
  return out;
}

// Up to 62 divsteps on the low bits of f (odd) and g, eta = −delta; returns the new eta.
// Runs of zero bits of g are skipped at once, and each odd step cancels as many low bits
// of g as eta allows (at most 6) with one multiple of f.
inline std::int64_t divsteps_62(std::int64_t eta, std::uint64_t f, std::uint64_t g, Matrix& t) {
  std::uint64_t u = 1, v = 0, q = 0, r = 1;
  int left = 62;
  for (;;) {
    const int zeros = std::countr_zero(g | (~std::uint64_t{0} << left));
    g >>= zeros;
    u <<= zeros;
    v <<= zeros;
    eta -= zeros;
    left -= zeros;
    if (left == 0) break;
    if (eta < 0) {  // delta > 0 and g odd: (f, g) ← (g, −f)
      eta = -eta;
      const std::uint64_t f_old = f, u_old = u, v_old = v;
      f = g;
      g = 0 - f_old;
      u = q;
      q = 0 - u_old;
      v = r;
      r = 0 - v_old;
    }
    // g += w·f with w = −g/f mod 2^limit, limit <= min(eta + 1, left, 6):
    // f^-1 mod 64 = f(2 − f²) (one Newton step from f^-1 ≡ f mod 8).
    const int limit = static_cast<int>(std::min<std::int64_t>({eta + 1, left, 6}));
    const std::uint64_t mask = (~std::uint64_t{0} >> (64 - limit));
    const std::uint64_t w = (g * f * (f * f - 2)) & mask;
    g += f * w;
    q += u * w;
    r += v * w;
  }
  t = {static_cast<std::int64_t>(u), static_cast<std::int64_t>(v), static_cast<std::int64_t>(q),
       static_cast<std::int64_t>(r)};
  return eta;
}

// (f, g) ← t·(f, g) / 2^62 over the low len limbs (exact division).
template <std::size_t L>
inline void update_fg(std::size_t len, Signed62<L>& f, Signed62<L>& g, const Matrix& t) {
  i128 cf = static_cast<i128>(t.u) * f[0] + static_cast<i128>(t.v) * g[0];
  i128 cg = static_cast<i128>(t.q) * f[0] + static_cast<i128>(t.r) * g[0];
  cf >>= 62;
  cg >>= 62;
  for (std::size_t i = 1; i < len; ++i) {
    cf += static_cast<i128>(t.u) * f[i] + static_cast<i128>(t.v) * g[i];
    cg += static_cast<i128>(t.q) * f[i] + static_cast<i128>(t.r) * g[i];
    f[i - 1] = static_cast<std::int64_t>(cf) & kMask62;
    g[i - 1] = static_cast<std::int64_t>(cg) & kMask62;
    cf >>= 62;
    cg >>= 62;
  }
  f[len - 1] = static_cast<std::int64_t>(cf);
  g[len - 1] = static_cast<std::int64_t>(cg);
}

// (d, e) ← t·(d, e) / 2^62 mod m, keeping both in (−2m, m): multiples of m are added so that
// the low 62 bits vanish (m_inv62 = m^-1 mod 2^62), plus m once per negative input.
template <std::size_t L>
inline void update_de(Signed62<L>& d, Signed62<L>& e, const Matrix& t, const Signed62<L>& m,
                      std::uint64_t m_inv62) {
  const std::int64_t sd = d[L - 1] >> 63, se = e[L - 1] >> 63;
  std::int64_t md = (t.u & sd) + (t.v & se);
  std::int64_t me = (t.q & sd) + (t.r & se);
  i128 cd = static_cast<i128>(t.u) * d[0] + static_cast<i128>(t.v) * e[0];
  i128 ce = static_cast<i128>(t.q) * d[0] + static_cast<i128>(t.r) * e[0];
  md -= static_cast<std::int64_t>(
      (m_inv62 * static_cast<std::uint64_t>(cd) + static_cast<std::uint64_t>(md)) &
      static_cast<std::uint64_t>(kMask62));
  me -= static_cast<std::int64_t>(
      (m_inv62 * static_cast<std::uint64_t>(ce) + static_cast<std::uint64_t>(me)) &
      static_cast<std::uint64_t>(kMask62));
  cd += static_cast<i128>(m[0]) * md;
  ce += static_cast<i128>(m[0]) * me;
  cd >>= 62;
  ce >>= 62;
  for (std::size_t i = 1; i < L; ++i) {
    cd += static_cast<i128>(t.u) * d[i] + static_cast<i128>(t.v) * e[i] +
          static_cast<i128>(m[i]) * md;
    ce += static_cast<i128>(t.q) * d[i] + static_cast<i128>(t.r) * e[i] +
          static_cast<i128>(m[i]) * me;
    d[i - 1] = static_cast<std::int64_t>(cd) & kMask62;
    e[i - 1] = static_cast<std::int64_t>(ce) & kMask62;
    cd >>= 62;
    ce >>= 62;
  }
  d[L - 1] = static_cast<std::int64_t>(cd);
  e[L - 1] = static_cast<std::int64_t>(ce);
}

// d in (−2m, m), negated when sign < 0, brought to [0, m) with normalised limbs.
template <std::size_t L>
inline void normalize(Signed62<L>& d, std::int64_t sign, const Signed62<L>& m) {
  const auto add_m_if_negative = [&] {
    const std::int64_t neg = d[L - 1] >> 63;
    for (std::size_t i = 0; i < L; ++i) d[i] += m[i] & neg;
  };
  const auto carry = [&] {
    for (std::size_t i = 0; i + 1 < L; ++i) {
      d[i + 1] += d[i] >> 62;
      d[i] &= kMask62;
    }
  };
  add_m_if_negative();  // (−2m, m) → (−m, m)
  const std::int64_t neg = sign >> 63;
  for (auto& x : d) x = (x ^ neg) - neg;  // (−m, m)
  carry();
  add_m_if_negative();  // [0, m)
  carry();
}

// x^-1 mod m for 0 < x < m, m odd; 0 for x = 0.
template <std::size_t L>
Signed62<L> inverse(const Signed62<L>& x, const Signed62<L>& m, std::uint64_t m_inv62) {
  Signed62<L> d{}, e{}, f = m, g = x;
  e[0] = 1;
  std::int64_t eta = -1;
  std::size_t len = L;
  for (;;) {
    Matrix t;
    eta = divsteps_62(eta, static_cast<std::uint64_t>(f[0]), static_cast<std::uint64_t>(g[0]), t);
    update_de(d, e, t, m, m_inv62);
    update_fg(len, f, g, t);
    if (g[0] == 0) {
      std::int64_t any = 0;
      for (std::size_t j = 1; j < len; ++j) any |= g[j];
      if (any == 0) break;
    }
    // Drop the top limb once both f and g fit in one limb less (it is 0 or −1 for both).
    const std::int64_t fn = f[len - 1], gn = g[len - 1];
    if (len > 1 && ((fn ^ (fn >> 63)) | (gn ^ (gn >> 63))) == 0) {
      f[len - 2] |= static_cast<std::int64_t>(static_cast<std::uint64_t>(fn) << 62);
      g[len - 2] |= static_cast<std::int64_t>(static_cast<std::uint64_t>(gn) << 62);
      --len;
    }
  }
  normalize(d, f[len - 1], m);  // f = ±1 (the gcd), d = ±x^-1
  return d;
}

}  // namespace safegcd

// a^-1 for an element of a Montgomery field (0 for 0), in variable time.
template <class Params>
field::MontField<Params> inverse_vartime(const field::MontField<Params>& a) {
  using F = field::MontField<Params>;
  constexpr std::size_t N = Params::kLimbs, L = (64 * N) / 62 + 1;
  static constexpr auto kM = safegcd::to_signed62<L>(Params::kModulus);
  static constexpr std::uint64_t kMInv62 = [] {
    std::uint64_t inv = Params::kModulus[0];  // Newton: correct to 3, 6, 12, ... bits
    for (int i = 0; i < 6; ++i) inv *= 2 - Params::kModulus[0] * inv;
    return inv & static_cast<std::uint64_t>(safegcd::kMask62);
  }();
  // The limbs hold aR; their inverse is a^-1·R^-1, and a Montgomery product with R³
  // gives a^-1·R, the Montgomery form of a^-1.
  static const F kR3 = F::from_mont(Params::kR2) * F::from_mont(Params::kR2);
  if (a.is_zero()) return a;
  const auto inv = safegcd::inverse<L>(safegcd::to_signed62<L>(a.mont), kM, kMInv62);
  return F::from_mont(safegcd::from_signed62<N>(inv)) * kR3;
}

inline field::Fp2 inverse_vartime(const field::Fp2& a) {
  const field::Fp n = inverse_vartime(a.norm());
  return {a.c0 * n, -(a.c1 * n)};
}

}  // namespace prooflab::msm
