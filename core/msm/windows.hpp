// Window plans and signed (Booth) digits for Pippenger.
//
// A scalar of T bits is cut into W windows of c bits (the top one holds what is left,
// 1..c bits). Every window but the top has a signed digit
//     d = v + b − 2^c·t,   v = the window's c bits, b = the bit below the window,
//                          t = the window's top bit,
// in [−2^(c−1), 2^(c−1)]; the t borrowed from one window is the b of the next, so the digits
// telescope back to the scalar with no carry chain and each digit reads only c + 1 bits. The
// top window is unsigned: v + b in [0, 2^top]. |d| names the bucket, the sign negates the
// base, so a signed window has 2^(c−1) buckets instead of 2^c − 1.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>

namespace prooflab::msm {

struct WindowPlan {
  unsigned bits = 0;     // T: every scalar is below 2^T
  unsigned c = 0;        // window width
  unsigned windows = 0;  // W = ⌈T/c⌉

  unsigned offset(unsigned w) const { return w * c; }
  bool is_top(unsigned w) const { return w + 1 == windows; }
  unsigned width(unsigned w) const { return is_top(w) ? bits - c * (windows - 1) : c; }
  // Largest |digit|, i.e. buckets 1..buckets(w).
  std::uint32_t buckets(unsigned w) const {
    return is_top(w) ? std::uint32_t{1} << width(w) : std::uint32_t{1} << (c - 1);
  }
};

inline WindowPlan make_window_plan(unsigned bits, unsigned c) {
  WindowPlan p;
  p.bits = bits;
  p.c = std::clamp(c, 1u, std::max(1u, bits));
  p.windows = bits == 0 ? 0 : (bits + p.c - 1) / p.c;
  return p;
}

// Bits [lo, lo + width) of a little-endian limb array, width <= 32.
template <std::size_t L>
inline std::uint64_t bits_at(const std::array<std::uint64_t, L>& k, unsigned lo, unsigned width) {
  const unsigned q = lo / 64, r = lo % 64;
  std::uint64_t v = q < L ? k[q] >> r : 0;
  if (r + width > 64 && q + 1 < L) v |= k[q + 1] << (64 - r);
  return v & ((std::uint64_t{1} << width) - 1);
}

// The digit of window w of scalar k under plan p.
template <std::size_t L>
inline std::int64_t window_digit(const std::array<std::uint64_t, L>& k, const WindowPlan& p,
                                 unsigned w) {
  const unsigned lo = p.offset(w), width = p.width(w);
  // bits = v·2 + b (b = 0 for the lowest window)
  const std::uint64_t bits = lo == 0 ? bits_at(k, 0, width) << 1 : bits_at(k, lo - 1, width + 1);
  const std::int64_t v_plus_b = static_cast<std::int64_t>((bits >> 1) + (bits & 1));
  if (p.is_top(w)) return v_plus_b;
  return v_plus_b - (static_cast<std::int64_t>(bits >> p.c) << p.c);
}

// Relative costs for choosing c, in units of one batch-affine addition (calibrated with
// tests/bench/msm_bench.cpp, see docs/msm.md).
struct MsmCostModel {
  double per_point_window = 0.06;  // digit, counting sort, fetch: per point and window
  double per_bucket = 0.03;        // histogram scan, segment bookkeeping: per bucket
  double reduce_per_bucket = 2.1;  // the two reduction additions of a non-empty bucket
  double per_window = 400;         // a few inversions per window (tree levels, reduction)

  // Expected cost of m points with T-bit scalars at width c.
  double cost(std::size_t m, unsigned bits, unsigned c) const {
    const WindowPlan p = make_window_plan(bits, c);
    double total = 0;
    const double md = static_cast<double>(m);
    for (unsigned w = 0; w < p.windows; ++w) {
      const double b = p.buckets(w);
      const double nonempty = b * -std::expm1(-md / b);
      total += (md - nonempty) + reduce_per_bucket * nonempty + per_point_window * md +
               per_bucket * b + per_window;
    }
    return total;
  }

  unsigned best_window(std::size_t m, unsigned bits, unsigned max_c = 22) const {
    unsigned best = 1;
    double best_cost = cost(m, bits, 1);
    for (unsigned c = 2; c <= std::min(max_c, bits); ++c) {
      const double v = cost(m, bits, c);
      if (v < best_cost) {
        best_cost = v;
        best = c;
      }
    }
    return best;
  }
};

}  // namespace prooflab::msm
