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
#include <cassert>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace prooflab::msm {

// One window: bits [offset, offset + width) of the scalar.
struct Window {
  unsigned offset = 0, width = 0;
  bool top = false;
  // Largest |digit|, i.e. buckets 1..buckets().
  std::uint32_t buckets() const {
    return top ? std::uint32_t{1} << width : std::uint32_t{1} << (width - 1);
  }
};

struct WindowPlan {
  unsigned bits = 0;           // T: every scalar is below 2^T
  std::vector<Window> window;  // low to high; the last one is the top window

  unsigned windows() const { return static_cast<unsigned>(window.size()); }
};

// Windows of the given widths, low to high (they must add up to bits).
inline WindowPlan make_window_plan(unsigned bits, const std::vector<unsigned>& widths) {
  WindowPlan p;
  p.bits = bits;
  unsigned offset = 0;
  for (const unsigned w : widths) {
    p.window.push_back({offset, w, false});
    offset += w;
  }
  assert(offset == bits);
  if (!p.window.empty()) p.window.back().top = true;
  return p;
}

// ⌈T/c⌉ windows of c bits, the top one holding what is left.
inline WindowPlan make_window_plan(unsigned bits, unsigned c) {
  c = std::clamp(c, 1u, std::max(1u, bits));
  std::vector<unsigned> widths;
  for (unsigned o = 0; o < bits; o += c) widths.push_back(std::min(c, bits - o));
  return make_window_plan(bits, widths);
}

// W windows: the top one of `top` bits, the others sharing the rest as evenly as possible
// (wider ones lowest).
inline std::vector<unsigned> even_widths(unsigned bits, unsigned windows, unsigned top) {
  std::vector<unsigned> widths;
  if (windows == 1) return {bits};
  const unsigned rest = bits - top, q = rest / (windows - 1), r = rest % (windows - 1);
  for (unsigned w = 0; w + 1 < windows; ++w) widths.push_back(q + (w < r ? 1 : 0));
  widths.push_back(top);
  return widths;
}

// Bits [lo, lo + width) of a little-endian limb array, width <= 32.
template <std::size_t L>
inline std::uint64_t bits_at(const std::array<std::uint64_t, L>& k, unsigned lo, unsigned width) {
  const unsigned q = lo / 64, r = lo % 64;
  std::uint64_t v = q < L ? k[q] >> r : 0;
  if (r + width > 64 && q + 1 < L) v |= k[q + 1] << (64 - r);
  return v & ((std::uint64_t{1} << width) - 1);
}

// The digit of scalar k in window w.
template <std::size_t L>
inline std::int64_t window_digit(const std::array<std::uint64_t, L>& k, const Window& w) {
  // bits = v·2 + b (b = 0 for the lowest window)
  const std::uint64_t bits =
      w.offset == 0 ? bits_at(k, 0, w.width) << 1 : bits_at(k, w.offset - 1, w.width + 1);
  const std::int64_t v_plus_b = static_cast<std::int64_t>((bits >> 1) + (bits & 1));
  if (w.top) return v_plus_b;
  return v_plus_b - (static_cast<std::int64_t>(bits >> w.width) << w.width);
}

// Relative costs for choosing the windows, in units of one batch-affine addition
// (calibrated with BM_msm_g1_window, see docs/msm.md).
struct MsmCostModel {
  double per_point_window = 0.06;  // digit, counting sort, fetch: per point and window
  double per_bucket = 0.03;        // histogram scan, segment bookkeeping: per bucket
  double reduce_per_bucket = 2.1;  // the two reduction additions of a non-empty bucket
  double per_window = 40;          // a few inversions and pool round trips per window
  // Fewer than kRadixReduceMin non-empty buckets are reduced by an XYZZ running sum: two
  // XYZZ additions (~4 units) per bucket plus a small multiple for the gap to the next one.
  double running_sum_per_bucket = 4;
  double running_sum_per_gap_bit = 2.4;

  // Expected cost of one window of B buckets over m points (all digits non-zero). It fills
  // about B(1 − e^(−m/B)) buckets, and the first point of a bucket costs nothing.
  double window_cost(double m, double b) const {
    const double nonempty = b * -std::expm1(-m / b);
    const double reduce =
        nonempty >= 64
            ? reduce_per_bucket * nonempty
            : nonempty * (running_sum_per_bucket +
                          running_sum_per_gap_bit * std::log2(std::max(1.0, b / nonempty)));
    return (m - nonempty) + reduce + per_point_window * m + per_bucket * b + per_window;
  }

  double cost(std::size_t m, const WindowPlan& p) const {
    double total = 0;
    for (const Window& w : p.window) total += window_cost(static_cast<double>(m), w.buckets());
    return total;
  }

  // The cheapest plan of evenly shared windows of at most max_width bits. Evaluated per
  // distinct width (a plan has at most three), so the search stays in the microseconds
  // that matter for small inputs.
  WindowPlan best_plan(std::size_t m, unsigned bits, unsigned max_width = 22) const {
    const double md = static_cast<double>(m);
    std::vector<double> signed_cost(max_width + 2, -1), top_cost(max_width + 2, -1);
    const auto cached = [&](std::vector<double>& memo, unsigned width, double buckets) {
      if (memo[width] < 0) memo[width] = window_cost(md, buckets);
      return memo[width];
    };
    std::vector<unsigned> best = {bits};
    double best_cost = bits <= max_width ? cached(top_cost, bits, std::ldexp(1.0, bits)) : 1e300;
    for (unsigned windows = 2; windows <= bits; ++windows) {
      const unsigned avg = (bits + windows - 1) / windows;
      if (avg < 3) break;  // narrower windows never pay
      if (avg > max_width + 1) continue;
      for (unsigned top = avg > 2 ? avg - 2 : 1; top <= std::min(avg + 1, max_width); ++top) {
        if (bits - top < windows - 1) continue;
        const auto widths = even_widths(bits, windows, top);
        if (widths.front() > max_width) continue;  // the widest come first
        double v = cached(top_cost, top, std::ldexp(1.0, top));
        for (unsigned w = 0; w + 1 < windows; ++w)
          v += cached(signed_cost, widths[w], std::ldexp(1.0, widths[w] - 1));
        if (v < best_cost) {
          best_cost = v;
          best = widths;
        }
      }
    }
    return make_window_plan(bits, best);
  }
};

}  // namespace prooflab::msm
