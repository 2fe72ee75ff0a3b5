// The GLV split of BLS12-381 scalars: k = k1 + k2·λ with λ = x² (x the curve parameter) and
// 0 <= k1, k2 < λ < 2^128, together with the cheap map E(P) = λ·P on each group. A k-fold
// multiple then costs two 128-bit multiples, k·P = k1·P + k2·E(P), which halves the windows
// of Pippenger (and so the bucket reductions) for the price of one extra base per point.
//
// λ = x² works for both groups: on G1 the cube-root endomorphism φ(x, y) = (βx, y) acts as
// −x² (see g1.hpp), so E = −φ; on G2 ψ acts as x, so E = ψ². Both act as λ only on the
// prime-order subgroup, which is where Groth16 bases live (parameter files are
// subgroup-checked on load).
#pragma once

#include <cstdint>

#include "core/curve/bls12_381.hpp"
#include "core/curve/g1.hpp"
#include "core/curve/g2.hpp"
#include "core/field/bigint.hpp"

namespace prooflab::msm {

using field::u128;

// k1 + k2·λ.
struct SplitScalar {
  u128 k1, k2;
};

// q·d + r = (hi:lo) for a divisor d with its top bit set and hi < d; v is the reciprocal
// floor((2^128 − 1)/d) − 2^64. Möller and Granlund, "Improved division by invariant
// integers" (IEEE TC 2011), Algorithm 4: two multiplications instead of a 128/64 divide.
struct Reciprocal64 {
  std::uint64_t d, v;
  constexpr explicit Reciprocal64(std::uint64_t divisor)
      : d(divisor), v(static_cast<std::uint64_t>(~u128{0} / divisor)) {}  // − 2^64 by truncation
};

inline constexpr std::uint64_t div_2by1(std::uint64_t hi, std::uint64_t lo, const Reciprocal64& r,
                                        std::uint64_t& rem) {
  u128 q = static_cast<u128>(r.v) * hi + ((static_cast<u128>(hi) << 64) | lo);
  std::uint64_t q1 = static_cast<std::uint64_t>(q >> 64) + 1;
  const std::uint64_t q0 = static_cast<std::uint64_t>(q);
  std::uint64_t rr = lo - q1 * r.d;
  if (rr > q0) {
    --q1;
    rr += r.d;
  }
  if (rr >= r.d) {
    ++q1;
    rr -= r.d;
  }
  rem = rr;
  return q1;
}

// k1 + k2·x² = k for k < r: two exact divisions by x (floor(floor(k/x)/x) = floor(k/x²)).
inline constexpr SplitScalar glv_split(const field::BigInt<4>& k) {
  constexpr Reciprocal64 kX(curve::kBlsXAbs);
  static_assert(curve::kBlsXAbs >> 63, "the 2-by-1 division needs a normalised divisor");
  std::uint64_t q[4], r1 = 0, r2 = 0;
  for (int i = 3; i >= 0; --i) q[i] = div_2by1(r1, k[i], kX, r1);
  std::uint64_t q2[4];
  for (int i = 3; i >= 0; --i) q2[i] = div_2by1(r2, q[i], kX, r2);
  // k < r = λ² − λ + 1 makes q2 < λ < 2^128, so q2[2] = q2[3] = 0.
  return {static_cast<u128>(r2) * curve::kBlsXAbs + r1, (static_cast<u128>(q2[1]) << 64) | q2[0]};
}

// E(P) = λ·P = x²·P on the prime-order subgroup, for an affine point (infinity maps to itself).
template <class Curve>
struct LambdaMap;

template <>
struct LambdaMap<curve::G1Curve> {
  static curve::G1Affine apply(const curve::G1Affine& p) {
    // β read off the curve module's own φ (X ↦ βX), so the two never disagree.
    static const field::Fp kBeta =
        curve::g1_endomorphism({field::Fp::one(), field::Fp::one(), field::Fp::one()}).X;
    if (p.is_infinity()) return p;
    return {p.x * kBeta, -p.y};  // −φ(P)
  }
};

template <>
struct LambdaMap<curve::G2Curve> {
  // ψ²(X, Y, Z) = (X·cx, Y·cy, Z) with cx, cy the norms of ψ's coefficients: read them off
  // ψ² of (1, 1, 1).
  static curve::G2Affine apply(const curve::G2Affine& p) {
    static const curve::G2Jacobian kCoeffs =
        curve::g2_psi(curve::g2_psi({field::Fp2::one(), field::Fp2::one(), field::Fp2::one()}));
    if (p.is_infinity()) return p;
    return {p.x * kCoeffs.X, p.y * kCoeffs.Y};
  }
};

}  // namespace prooflab::msm
