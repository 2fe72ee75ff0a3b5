// A prime field in Montgomery form over 32-bit limbs, for the device (and, through the
// emulated carry chain, for the host tests): Mont32<FrParams32> is Fr, Mont32<FpParams32> Fp.
// Same representation as core/field/mont.hpp (R = 2^(32·N) = 2^(64·N/2)); see constants.hpp.
//
// Multiplication is CIOS Montgomery multiplication with the product split into two
// accumulators, one for the limbs a[j] with j even and one for j odd (shifted by one word),
// so that both halves of every 32×32 product (mad.lo, mad.hi) land in one unbroken carry
// chain. The technique is from N. Emmart, J. Luitjens, C. Weems, C. Woolley, "Optimizing
// Modular Multiplication for NVIDIA's Maxwell GPUs" (ARITH 2016), and is what sppark's
// ff/mont_t.cuh does; the code and the bound below are our own.
//
// Invariant (W = 2^32). The running value is T = X + W·Y, X and Y N-word accumulators, X the
// one aligned with the current row. Every chain that adds into X hands its carry-out to
// Y[N-1] (weight W^N), so X always fits N words and T is exact. Within row i,
// T ≤ T_{i-1} + a·b_i + m·p < 2p + 2p(W-1) = 2pW (a < p, T_{i-1} < 2p), all additions are
// non-negative and Y only grows, so Y ≤ T/W < 2p < W^N: no chain on Y can carry out of its
// top word, which is why those chains end in a plain madc.hi. After row i the word X[0] is
// zero; dividing by W makes the old Y the new X (plus X[1]) and X >> 2 words the new Y,
// which the next row fuses into its first chain. T_N < 2p, so one conditional subtraction
// makes the result canonical (< p), as the CPU's is: results compare bit for bit.
// Needs an even N and 2p < W^N (true for Fr, 255 bits in 8 limbs, and Fp, 381 in 12).
#pragma once

#include <cstdint>

#include "gpu/field/carry_chain.cuh"
#include "gpu/field/constants.hpp"

#if defined(__CUDACC__) || defined(__clang__)
#define PROOFLAB_UNROLL _Pragma("unroll")
#define PROOFLAB_NO_UNROLL _Pragma("unroll 1")
#else
#define PROOFLAB_UNROLL
#define PROOFLAB_NO_UNROLL
#endif

namespace prooflab::gpu::field {

template <class P>
struct alignas(16) Mont32 {
  using Params = P;
  static constexpr int N = P::kLimbs;
  static_assert(N % 2 == 0, "the even/odd accumulators need an even limb count");

  std::uint32_t v[N];  // little-endian limbs of a·R mod m (the raw integer for from/to_mont)

  // 3m < W^N (Fp; not Fr, 3r > 2^256): room for the dedicated squaring's and mul_diff's
  // running values (mont_sqr, mont_mul_sum_lazy).
  static constexpr bool kThreeModuliFit = P::modulus(N - 1) < 0x55555555u;

  PROOFLAB_HDI static Mont32 zero() {
    Mont32 r;
    PROOFLAB_UNROLL for (int i = 0; i < N; ++i) r.v[i] = 0;
    return r;
  }
  PROOFLAB_HDI static Mont32 one() {
    Mont32 r;
    PROOFLAB_UNROLL for (int i = 0; i < N; ++i) r.v[i] = P::one(i);
    return r;
  }
  // The raw integer 1 (the Montgomery form of R^-1): multiplying by it leaves Montgomery form.
  PROOFLAB_HDI static Mont32 raw_one() {
    Mont32 r = zero();
    r.v[0] = 1;
    return r;
  }
  PROOFLAB_HDI static Mont32 raw_r2() {
    Mont32 r;
    PROOFLAB_UNROLL for (int i = 0; i < N; ++i) r.v[i] = P::r2(i);
    return r;
  }

  PROOFLAB_HDI bool is_zero() const {
    std::uint32_t acc = 0;
    PROOFLAB_UNROLL for (int i = 0; i < N; ++i) acc |= v[i];
    return acc == 0;
  }
  friend PROOFLAB_HDI bool operator==(const Mont32& a, const Mont32& b) {
    std::uint32_t acc = 0;
    PROOFLAB_UNROLL for (int i = 0; i < N; ++i) acc |= a.v[i] ^ b.v[i];
    return acc == 0;
  }
  friend PROOFLAB_HDI bool operator!=(const Mont32& a, const Mont32& b) { return !(a == b); }

  friend PROOFLAB_HDI Mont32 operator+(const Mont32& a, const Mont32& b) {
    // a + b < 2m < 2^(32N): no carry out of the top limb.
    Mont32 r;
    r.v[0] = cc::add_cc(a.v[0], b.v[0]);
    PROOFLAB_UNROLL for (int i = 1; i < N - 1; ++i) r.v[i] = cc::addc_cc(a.v[i], b.v[i]);
    r.v[N - 1] = cc::addc(a.v[N - 1], b.v[N - 1]);
    r.reduce_once();
    return r;
  }

  friend PROOFLAB_HDI Mont32 operator-(const Mont32& a, const Mont32& b) {
    Mont32 r;
    r.v[0] = cc::sub_cc(a.v[0], b.v[0]);
    PROOFLAB_UNROLL for (int i = 1; i < N; ++i) r.v[i] = cc::subc_cc(a.v[i], b.v[i]);
    const std::uint32_t mask = cc::subc(0, 0);  // all ones when a < b: add m back
    r.v[0] = cc::add_cc(r.v[0], P::modulus(0) & mask);
    PROOFLAB_UNROLL for (int i = 1; i < N - 1; ++i) r.v[i] =
        cc::addc_cc(r.v[i], P::modulus(i) & mask);
    r.v[N - 1] = cc::addc(r.v[N - 1], P::modulus(N - 1) & mask);
    return r;
  }

  PROOFLAB_HDI Mont32 operator-() const {
    Mont32 r;
    r.v[0] = cc::sub_cc(P::modulus(0), v[0]);
    PROOFLAB_UNROLL for (int i = 1; i < N - 1; ++i) r.v[i] = cc::subc_cc(P::modulus(i), v[i]);
    r.v[N - 1] = cc::subc(P::modulus(N - 1), v[N - 1]);
    const std::uint32_t keep = is_zero() ? 0u : 0xffffffffu;  // -0 is 0, not m
    PROOFLAB_UNROLL for (int i = 0; i < N; ++i) r.v[i] &= keep;
    return r;
  }

  PROOFLAB_HDI Mont32 dbl() const { return *this + *this; }

  // a·b − c·d, canonical, for canonical a, b, c, d. Where 3m < W^N (Fp) both products share
  // one Montgomery reduction (mont_mul_sum_lazy of a·b + c·(m − d)): 3·2N² multiply-adds
  // against two multiplications' 4·2N², and one conditional subtraction instead of two and a
  // modular subtraction. Elsewhere (Fr) two multiplications and a subtraction.
  PROOFLAB_HDI static Mont32 mul_diff(const Mont32& a, const Mont32& b, const Mont32& c, const Mont32& d) {
    if constexpr (kThreeModuliFit) {
      std::uint32_t e[N];  // m − d in (0, m]: d < m, so no borrow out
      e[0] = cc::sub_cc(P::modulus(0), d.v[0]);
      PROOFLAB_UNROLL for (int i = 1; i < N - 1; ++i) e[i] = cc::subc_cc(P::modulus(i), d.v[i]);
      e[N - 1] = cc::subc(P::modulus(N - 1), d.v[N - 1]);
      Mont32 r;
      mont_mul_sum_lazy(r.v, a.v, b.v, c.v, e);
      subtract_modulus_once(r.v);
      return r;
    } else {
      return a * b - c * d;
    }
  }

  friend PROOFLAB_HDI Mont32 operator*(const Mont32& a, const Mont32& b) {
    Mont32 r;
    mont_mul(r.v, a.v, b.v);
    return r;
  }
  PROOFLAB_HDI Mont32& operator*=(const Mont32& b) { return *this = *this * b; }
  PROOFLAB_HDI Mont32& operator+=(const Mont32& b) { return *this = *this + b; }
  PROOFLAB_HDI Mont32& operator-=(const Mont32& b) { return *this = *this - b; }

  // a² for canonical a. Where 3m < W^N (Fp) a dedicated squaring: each off-diagonal product
  // once (see mont_sqr), 78 + 144 multiply pairs against the multiplication's 144 + 144.
  // Elsewhere (Fr: 3r > 2^256; the NTT never squares) a multiplication.
  PROOFLAB_HDI Mont32 sqr() const {
    if constexpr (kDedicatedSquaring) {
      Mont32 r;
      mont_sqr(r.v, v);
      return r;
    } else {
      return *this * *this;
    }
  }

  // a^(m−2) = a^−1 for a ≠ 0 (Fermat; 0 gives 0), by square-and-multiply from the top bit:
  // ~log2(m) squarings and half as many multiplications (~570 for Fp). For work done once per
  // point (the fixed-base tables), not for inner loops.
  PROOFLAB_HDI Mont32 inverse() const {
    Mont32 r = one();
    PROOFLAB_NO_UNROLL for (int i = N - 1; i >= 0; --i) {  // one copy of the loop's code
      const std::uint32_t e = i == 0 ? P::modulus(0) - 2 : P::modulus(i);  // m's limb 0 > 2
      PROOFLAB_NO_UNROLL for (int bit = 31; bit >= 0; --bit) {
        r = r.sqr();
        if ((e >> bit) & 1u) r *= *this;
      }
    }
    return r;
  }

  // Canonical integer (limbs < m) -> Montgomery form, and back.
  PROOFLAB_HDI static Mont32 to_mont(const Mont32& canonical) { return canonical * raw_r2(); }
  PROOFLAB_HDI static Mont32 from_mont(const Mont32& mont) { return mont * raw_one(); }

  // ---- The lazy domain: values in [0, 2m), each the class of its value mod m ----
  // For a chain of operations that ends in canonical() (the NTT passes): a multiplication
  // saves its final conditional subtraction (17 of its ~460 instructions). Needs 2m < W^N.
  static_assert(P::modulus(N - 1) < 0x80000000u, "the lazy domain needs 2m < 2^(32N)");

  // a·b·R^-1 in [0, 2m) for a < m and b < 2m. a is the operand multiplied whole in every
  // row, so the row invariant T < 2m holds as for canonical inputs (see the top of this file);
  // at the end T < m·(b/R + 1) < 2m because 2m < R.
  PROOFLAB_HDI static Mont32 mul_lazy(const Mont32& canonical_a, const Mont32& lazy_b) {
    Mont32 r;
    mont_mul_lazy(r.v, canonical_a.v, lazy_b.v);
    return r;
  }
  // a + b in [0, 2m) for a, b in [0, 2m); the sum may carry out of the top word (4m > W^N for
  // Fr), and then it certainly exceeds 2m.
  PROOFLAB_HDI static Mont32 add_lazy(const Mont32& a, const Mont32& b) {
    Mont32 s;
    s.v[0] = cc::add_cc(a.v[0], b.v[0]);
    PROOFLAB_UNROLL for (int i = 1; i < N; ++i) s.v[i] = cc::addc_cc(a.v[i], b.v[i]);
    const std::uint32_t carry = cc::addc(0, 0);
    std::uint32_t t[N];
    t[0] = cc::sub_cc(s.v[0], twice_modulus(0));
    PROOFLAB_UNROLL for (int i = 1; i < N; ++i) t[i] = cc::subc_cc(s.v[i], twice_modulus(i));
    const std::uint32_t keep = cc::subc(0, 0) & (carry - 1);  // s < 2m and no carry: keep s
    PROOFLAB_UNROLL for (int i = 0; i < N; ++i) s.v[i] = (s.v[i] & keep) | (t[i] & ~keep);
    return s;
  }
  // a - b in [0, 2m) for a, b in [0, 2m).
  PROOFLAB_HDI static Mont32 sub_lazy(const Mont32& a, const Mont32& b) {
    Mont32 r;
    r.v[0] = cc::sub_cc(a.v[0], b.v[0]);
    PROOFLAB_UNROLL for (int i = 1; i < N; ++i) r.v[i] = cc::subc_cc(a.v[i], b.v[i]);
    const std::uint32_t mask = cc::subc(0, 0);  // all ones when a < b: add 2m back
    r.v[0] = cc::add_cc(r.v[0], twice_modulus(0) & mask);
    PROOFLAB_UNROLL for (int i = 1; i < N - 1; ++i) r.v[i] =
        cc::addc_cc(r.v[i], twice_modulus(i) & mask);
    r.v[N - 1] = cc::addc(r.v[N - 1], twice_modulus(N - 1) & mask);
    return r;
  }
  // [0, 2m) -> [0, m).
  PROOFLAB_HDI Mont32 canonical() const {
    Mont32 r = *this;
    r.reduce_once();
    return r;
  }

 private:
  PROOFLAB_HDI static constexpr std::uint32_t twice_modulus(int i) {
    std::uint64_t carry = 0, limb = 0;
    for (int k = 0; k <= i; ++k) {
      const std::uint64_t v = 2 * std::uint64_t{P::modulus(k)} + carry;
      limb = v & 0xffffffffu;
      carry = v >> 32;
    }
    return static_cast<std::uint32_t>(limb);
  }

  // v -= m when v >= m, without a branch.
  PROOFLAB_HDI void reduce_once() {
    std::uint32_t t[N];
    t[0] = cc::sub_cc(v[0], P::modulus(0));
    PROOFLAB_UNROLL for (int i = 1; i < N; ++i) t[i] = cc::subc_cc(v[i], P::modulus(i));
    const std::uint32_t keep = cc::subc(0, 0);  // all ones when v < m
    PROOFLAB_UNROLL for (int i = 0; i < N; ++i) v[i] = (v[i] & keep) | (t[i] & ~keep);
  }

  // Row 0: X = Σ_{j even} a_j·b·W^j, Y = Σ_{j odd} a_j·b·W^(j-1). No additions, no carries.
  PROOFLAB_HDI static void first_row(std::uint32_t (&x)[N], std::uint32_t (&y)[N],
                                     const std::uint32_t (&a)[N], std::uint32_t b) {
    PROOFLAB_UNROLL for (int j = 0; j < N; j += 2) {
      x[j] = a[j] * b;
      x[j + 1] = cc::mul_hi(a[j], b);
    }
    PROOFLAB_UNROLL for (int j = 1; j < N; j += 2) {
      y[j - 1] = a[j] * b;
      y[j] = cc::mul_hi(a[j], b);
    }
  }

  // Fr's two low limbs are 1 and W - 1 (r ≡ 2^64 - 2^32 + 1 mod 2^64), so M0 = W - 1 and
  // m = -X[0]: the product m·(W - 1) = m·W - m is lo = X[0], hi = X[0] ? ~X[0] : 0, two ALU
  // operations instead of two multiply-adds. The multiply pipe (fmaheavy) is what bounds
  // the NTT (ncu: 97 % busy in the multiplication benchmark, issue slots 43 %).
  static constexpr bool kLowLimbsOneAndMinusOne =
      P::modulus(0) == 1 && P::modulus(1) == 0xffffffffu && P::kM0 == 0xffffffffu;

  // T += m·p with m = X[0]·M0 mod W, which makes X[0] zero.
  PROOFLAB_HDI static void reduce_row(std::uint32_t (&x)[N], std::uint32_t (&y)[N]) {
    const std::uint32_t x0 = x[0];
    const std::uint32_t m = x0 * P::kM0;
    if constexpr (P::modulus(0) == 1) {
      // Fr's lowest limb is 1: m·1 has no high half, so two IMADs per row become adds
      // (the multiply pipe is what bounds the NTT).
      x[0] = cc::add_cc(x[0], m);
      x[1] = cc::addc_cc(x[1], 0);
    } else {
      x[0] = cc::mad_lo_cc(m, P::modulus(0), x[0]);
      x[1] = cc::madc_hi_cc(m, P::modulus(0), x[1]);
    }
    PROOFLAB_UNROLL for (int j = 2; j < N; j += 2) {
      x[j] = cc::madc_lo_cc(m, P::modulus(j), x[j]);
      x[j + 1] = cc::madc_hi_cc(m, P::modulus(j), x[j + 1]);
    }
    y[N - 1] = cc::addc(y[N - 1], 0);
    if constexpr (kLowLimbsOneAndMinusOne) {
      const std::uint32_t hi = x0 ? ~x0 : 0u;  // plain C: no carry-flag instruction
      y[0] = cc::add_cc(y[0], x0);
      y[1] = cc::addc_cc(y[1], hi);
    } else {
      y[0] = cc::mad_lo_cc(m, P::modulus(1), y[0]);
      y[1] = cc::madc_hi_cc(m, P::modulus(1), y[1]);
    }
    PROOFLAB_UNROLL for (int j = 3; j < N - 1; j += 2) {
      y[j - 1] = cc::madc_lo_cc(m, P::modulus(j), y[j - 1]);
      y[j] = cc::madc_hi_cc(m, P::modulus(j), y[j]);
    }
    y[N - 2] = cc::madc_lo_cc(m, P::modulus(N - 1), y[N - 2]);
    y[N - 1] = cc::madc_hi(m, P::modulus(N - 1), y[N - 1]);
  }

  // Rows 1..N-1: next_products, then reduce_row.
  PROOFLAB_HDI static void next_row(std::uint32_t (&x)[N], std::uint32_t (&y)[N],
                                    const std::uint32_t (&a)[N], std::uint32_t b) {
    next_products(x, y, a, b);
    reduce_row(x, y);
  }

  // A row's products before its reduction. On entry (prev_x, prev_y) of the previous row,
  // prev_x[0] == 0. Here x is the previous Y (becoming the aligned accumulator) and y the
  // previous X (becoming Y).
  PROOFLAB_HDI static void next_products(std::uint32_t (&x)[N], std::uint32_t (&y)[N],
                                         const std::uint32_t (&a)[N], std::uint32_t b) {
    // Divide by W: x += y[1] (weight 1), y = (y >> 2 words) + Σ_{j odd} a_j·b·W^(j-1), one chain.
    x[0] = cc::add_cc(x[0], y[1]);
    PROOFLAB_UNROLL for (int j = 0; j < N - 2; j += 2) {
      y[j] = cc::madc_lo_cc(a[j + 1], b, y[j + 2]);
      y[j + 1] = cc::madc_hi_cc(a[j + 1], b, y[j + 3]);
    }
    y[N - 2] = cc::madc_lo_cc(a[N - 1], b, 0);
    y[N - 1] = cc::madc_hi(a[N - 1], b, 0);
    // x += Σ_{j even} a_j·b·W^j, carry out to y[N-1].
    x[0] = cc::mad_lo_cc(a[0], b, x[0]);
    x[1] = cc::madc_hi_cc(a[0], b, x[1]);
    PROOFLAB_UNROLL for (int j = 2; j < N; j += 2) {
      x[j] = cc::madc_lo_cc(a[j], b, x[j]);
      x[j + 1] = cc::madc_hi_cc(a[j], b, x[j + 1]);
    }
    y[N - 1] = cc::addc(y[N - 1], 0);
  }

  // Adds c·e to a row's accumulators before its reduction (x aligned, y's word k of weight
  // W^(k+1)): y += Σ_{j odd} c_j·e·W^(j−1), then x += Σ_{j even} c_j·e·W^j, its carry into
  // y[N−1]. Y cannot carry out of its top word (mont_mul_sum_lazy's bound).
  PROOFLAB_HDI static void add_products(std::uint32_t (&x)[N], std::uint32_t (&y)[N],
                                        const std::uint32_t (&c)[N], std::uint32_t e) {
    y[0] = cc::mad_lo_cc(c[1], e, y[0]);
    y[1] = cc::madc_hi_cc(c[1], e, y[1]);
    PROOFLAB_UNROLL for (int j = 3; j < N - 1; j += 2) {
      y[j - 1] = cc::madc_lo_cc(c[j], e, y[j - 1]);
      y[j] = cc::madc_hi_cc(c[j], e, y[j]);
    }
    y[N - 2] = cc::madc_lo_cc(c[N - 1], e, y[N - 2]);
    y[N - 1] = cc::madc_hi(c[N - 1], e, y[N - 1]);
    x[0] = cc::mad_lo_cc(c[0], e, x[0]);
    x[1] = cc::madc_hi_cc(c[0], e, x[1]);
    PROOFLAB_UNROLL for (int j = 2; j < N; j += 2) {
      x[j] = cc::madc_lo_cc(c[j], e, x[j]);
      x[j + 1] = cc::madc_hi_cc(c[j], e, x[j + 1]);
    }
    y[N - 1] = cc::addc(y[N - 1], 0);
  }

  // r = (a·b + c·e)·R^-1 mod m in [0, 2m) for a, c < m and b, e ≤ m, with 3m < W^N: every
  // row adds a·b_i and c·e_i before its one reduction. Bounds: after row i the value is
  // (Σ_{k≤i} (a·b_k + c·e_k)·W^k + M_i·m) / W^(i+1) < a + c + m < 3m (within the row < 3m·W,
  // so Y < 3m < W^N and X fits N words, as for mont_mul with 2m), and at the end
  // (a·b + c·e + M·m)/R < m·(2m/R + 1) < 2m because 2m < R (Fp: < 1.25m).
  PROOFLAB_HDI static void mont_mul_sum_lazy(std::uint32_t (&r)[N], const std::uint32_t (&a)[N],
                                             const std::uint32_t (&b)[N], const std::uint32_t (&c)[N],
                                             const std::uint32_t (&e)[N]) {
    std::uint32_t acc0[N], acc1[N];
    first_row(acc0, acc1, a, b[0]);
    add_products(acc0, acc1, c, e[0]);
    reduce_row(acc0, acc1);
    PROOFLAB_UNROLL for (int i = 1; i < N; i += 2) {  // the accumulators swap roles every row
      next_products(acc1, acc0, a, b[i]);
      add_products(acc1, acc0, c, e[i]);
      reduce_row(acc1, acc0);
      if (i + 1 < N) {
        next_products(acc0, acc1, a, b[i + 1]);
        add_products(acc0, acc1, c, e[i + 1]);
        reduce_row(acc0, acc1);
      }
    }
    r[0] = cc::add_cc(acc0[0], acc1[1]);
    PROOFLAB_UNROLL for (int j = 1; j < N - 1; ++j) r[j] = cc::addc_cc(acc0[j], acc1[j + 1]);
    r[N - 1] = cc::addc(acc0[N - 1], 0);
  }

  // r = a·b·R^-1 mod m in [0, 2m) (r may alias a or b).
  PROOFLAB_HDI static void mont_mul_lazy(std::uint32_t (&r)[N], const std::uint32_t (&a)[N],
                                         const std::uint32_t (&b)[N]) {
    std::uint32_t acc0[N], acc1[N];
    first_row(acc0, acc1, a, b[0]);
    reduce_row(acc0, acc1);
    // The accumulators swap roles every row; N is even, so after the last (odd) row acc1 is
    // the aligned one (acc1[0] == 0) and the result is acc0 + (acc1 >> 1 word).
    PROOFLAB_UNROLL for (int i = 1; i < N; i += 2) {
      next_row(acc1, acc0, a, b[i]);
      if (i + 1 < N) next_row(acc0, acc1, a, b[i + 1]);
    }
    r[0] = cc::add_cc(acc0[0], acc1[1]);
    PROOFLAB_UNROLL for (int j = 1; j < N - 1; ++j) r[j] = cc::addc_cc(acc0[j], acc1[j + 1]);
    r[N - 1] = cc::addc(acc0[N - 1], 0);
  }

  // r = a·b·R^-1 mod m, canonical (r may alias a or b).
  PROOFLAB_HDI static void mont_mul(std::uint32_t (&r)[N], const std::uint32_t (&a)[N],
                                    const std::uint32_t (&b)[N]) {
    mont_mul_lazy(r, a, b);
    subtract_modulus_once(r);  // T_N < 2m
  }

  PROOFLAB_HDI static void subtract_modulus_once(std::uint32_t (&r)[N]) {
    std::uint32_t t[N];
    t[0] = cc::sub_cc(r[0], P::modulus(0));
    PROOFLAB_UNROLL for (int i = 1; i < N; ++i) t[i] = cc::subc_cc(r[i], P::modulus(i));
    const std::uint32_t keep = cc::subc(0, 0);
    PROOFLAB_UNROLL for (int i = 0; i < N; ++i) r[i] = (r[i] & keep) | (t[i] & ~keep);
  }

  // ---- The squaring ----
  // a² = Σ_i a_i·W^i · V_i with V_i = a_i·W^i + 2·Σ_{j>i} a_j·W^j (Σ_i a_i W^i V_i telescopes
  // to a²: A_i² − A_{i+1}² = a_i W^i (a_i W^i + 2 A_{i+1}) for the tails A_i = Σ_{j≥i} a_j W^j).
  // So the CIOS rows of mont_mul with b = a run with row i's multiplicand V_i in place of a:
  // its words below i are zero (those products are skipped: N − i products in row i, 78 in
  // all for N = 12), word i is a_i, word i + 1 is a_{i+1}·2 mod W (2·A_{i+1} has no bit from
  // a_i) and words above are those of 2a. Needs a < W^N / 2 (canonical a) so 2a has no word N.
  // Bounds: the rows so far have added a² − A_{i+1}² ≤ W^{i+1}·2a, so the running value stays
  // below 2a + m < 3m < W^N (the accumulators fit, as mont_mul's argument needs with 2m there),
  // and the result is (a² + M·m)/R < m·(m/R) + m < 2m: one conditional subtraction.
  static constexpr bool kDedicatedSquaring = kThreeModuliFit;

  // Word j of V_i, from a and d = 2a (as words).
  PROOFLAB_HDI static constexpr std::uint32_t sqr_multiplicand(int i, int j, const std::uint32_t (&a)[N],
                                                               const std::uint32_t (&d)[N]) {
    return j < i ? 0u : j == i ? a[j] : j == i + 1 ? a[j] << 1 : d[j];
  }

  // next_row with multiplicand V_i (products of its zero words below `first` skipped).
  template <int first>
  PROOFLAB_HDI static void next_row_sqr(std::uint32_t (&x)[N], std::uint32_t (&y)[N],
                                        const std::uint32_t (&a)[N], const std::uint32_t (&d)[N]) {
    const std::uint32_t b = a[first];
    x[0] = cc::add_cc(x[0], y[1]);
    // Odd words j + 1 < first have no product (two loops with constant bounds, so both unroll).
    constexpr int y_first = first & ~1, y_skip_end = y_first < N - 2 ? y_first : N - 2;
    PROOFLAB_UNROLL for (int j = 0; j < y_skip_end; j += 2) {
      y[j] = cc::addc_cc(y[j + 2], 0);
      y[j + 1] = cc::addc_cc(y[j + 3], 0);
    }
    PROOFLAB_UNROLL for (int j = y_first; j < N - 2; j += 2) {
      const std::uint32_t v = sqr_multiplicand(first, j + 1, a, d);
      y[j] = cc::madc_lo_cc(v, b, y[j + 2]);
      y[j + 1] = cc::madc_hi_cc(v, b, y[j + 3]);
    }
    {
      const std::uint32_t v = sqr_multiplicand(first, N - 1, a, d);  // first ≤ N − 1
      y[N - 2] = cc::madc_lo_cc(v, b, 0);
      y[N - 1] = cc::madc_hi(v, b, 0);
    }
    constexpr int x_first = first + (first & 1);  // the first even word with a product
    if constexpr (x_first < N) {
      {
        const std::uint32_t v = sqr_multiplicand(first, x_first, a, d);
        x[x_first] = cc::mad_lo_cc(v, b, x[x_first]);
        x[x_first + 1] = cc::madc_hi_cc(v, b, x[x_first + 1]);
      }
      PROOFLAB_UNROLL for (int j = x_first + 2; j < N; j += 2) {
        const std::uint32_t v = sqr_multiplicand(first, j, a, d);
        x[j] = cc::madc_lo_cc(v, b, x[j]);
        x[j + 1] = cc::madc_hi_cc(v, b, x[j + 1]);
      }
      y[N - 1] = cc::addc(y[N - 1], 0);
    }
    reduce_row(x, y);
  }

  // Rows i ≥ 1, two at a time (the accumulators swap roles every row, as in mont_mul_lazy).
  template <int i>
  PROOFLAB_HDI static void sqr_rows(std::uint32_t (&acc0)[N], std::uint32_t (&acc1)[N],
                                    const std::uint32_t (&a)[N], const std::uint32_t (&d)[N]) {
    if constexpr (i < N) {
      next_row_sqr<i>(acc1, acc0, a, d);
      if constexpr (i + 1 < N) next_row_sqr<i + 1>(acc0, acc1, a, d);
      sqr_rows<i + 2>(acc0, acc1, a, d);
    }
  }

  // r = a²·R^-1 mod m, canonical, for canonical a (r may alias a).
  PROOFLAB_HDI static void mont_sqr(std::uint32_t (&r)[N], const std::uint32_t (&a_in)[N]) {
    std::uint32_t a[N], d[N];
    PROOFLAB_UNROLL for (int j = 0; j < N; ++j) a[j] = a_in[j];
    d[0] = a[0] << 1;
    PROOFLAB_UNROLL for (int j = 1; j < N; ++j) d[j] = (a[j] << 1) | (a[j - 1] >> 31);
    std::uint32_t v0[N];
    PROOFLAB_UNROLL for (int j = 0; j < N; ++j) v0[j] = sqr_multiplicand(0, j, a, d);
    std::uint32_t acc0[N], acc1[N];
    first_row(acc0, acc1, v0, a[0]);
    reduce_row(acc0, acc1);
    sqr_rows<1>(acc0, acc1, a, d);
    r[0] = cc::add_cc(acc0[0], acc1[1]);
    PROOFLAB_UNROLL for (int j = 1; j < N - 1; ++j) r[j] = cc::addc_cc(acc0[j], acc1[j + 1]);
    r[N - 1] = cc::addc(acc0[N - 1], 0);
    subtract_modulus_once(r);
  }
};

}  // namespace prooflab::gpu::field
