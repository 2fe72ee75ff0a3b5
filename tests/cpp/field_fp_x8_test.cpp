// FpX8, Fp2X8 and FrX8 (core/field/fp_x8.hpp, fp2_x8.hpp), the 8-lane AVX-512 IFMA
// arithmetic, against Fp, Fp2 and Fr on random and edge-case inputs, including the non-canonical
// representatives of the lazy domain (a + k·p) that the bounds allow. Skipped, with a
// message, on CPUs without IFMA.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <random>
#include <vector>

#include "core/field/fp.hpp"
#include "core/field/fp2.hpp"
#include "core/field/fp2_x8.hpp"
#include "core/field/fr.hpp"
#include "core/field/fp_x8.hpp"

namespace {

using namespace prooflab::field;

using Words = std::array<std::uint64_t, 6>;
constexpr BigInt<6> kP = FpParams::kModulus;

#define SKIP_WITHOUT_IFMA() \
  if (!ifma_available()) GTEST_SKIP() << "this CPU has no AVX-512 IFMA: FpX8 is not used here"

// v + k·p as six words (the Montgomery integer of v plus k moduli).
Words lazy(const Fp& v, unsigned k) {
  BigInt<6> w = v.mont;
  for (unsigned i = 0; i < k; ++i) bigint_add(w, kP);
  return w;
}

// Whether the integer is below k·p.
bool below(const Words& w, unsigned k) {
  BigInt<6> bound{};
  for (unsigned i = 0; i < k; ++i) bigint_add(bound, kP);
  return bigint_compare(w, bound) < 0;
}

Fp reduce(Words w) {
  while (bigint_compare(w, kP) >= 0) bigint_sub(w, kP);
  return Fp::from_mont(w);
}

struct Lanes {
  alignas(64) std::uint64_t words[6 * 8];
  void set(std::size_t lane, const Words& w) {
    for (std::size_t k = 0; k < 6; ++k) words[8 * k + lane] = w[k];
  }
  Words get(std::size_t lane) const {
    Words w;
    for (std::size_t k = 0; k < 6; ++k) w[k] = words[8 * k + lane];
    return w;
  }
};

enum class Op { kMul, kAddThenSub2P, kSubP, kCanonical, kRoundTrip };

// out = op(a, b) lane by lane, computed with FpX8.
PROOFLAB_IFMA_TARGET void apply(Op op, const Lanes& a, const Lanes& b, Lanes& out) {
  const FpX8 x = FpX8::load(a.words), y = FpX8::load(b.words);
  FpX8 r;
  switch (op) {
    case Op::kMul: r = x8_mul(x, y); break;
    case Op::kAddThenSub2P: r = x8_sub(x8_add(x, y), y, x8::k2P); break;
    case Op::kSubP: r = x8_sub(x, y, x8::kP); break;
    case Op::kCanonical: r = x8_canonical(x); break;
    case Op::kRoundTrip: r = x; break;
  }
  x8_store(r, out.words);
}

// Random values with the edge cases 0, 1, p − 1 mixed in.
std::vector<Fp> samples(std::mt19937_64& rng, std::size_t n) {
  std::vector<Fp> v = {Fp::zero(), Fp::one(), -Fp::one(), Fp::from_mont({1, 0, 0, 0, 0, 0})};
  while (v.size() < n) v.push_back(Fp::random(rng));
  return v;
}

TEST(FpX8, LoadStoreRoundTripsEveryWord) {
  SKIP_WITHOUT_IFMA();
  std::mt19937_64 rng(1);
  for (int rep = 0; rep < 64; ++rep) {
    Lanes a, out;
    for (std::size_t j = 0; j < 8; ++j) {
      Words w;
      for (auto& x : w) x = rng();
      if (rep == 0) w.fill(~std::uint64_t{0});
      a.set(j, w);
    }
    apply(Op::kRoundTrip, a, a, out);
    for (std::size_t j = 0; j < 8; ++j) EXPECT_EQ(out.get(j), a.get(j)) << "lane " << j;
  }
}

TEST(FpX8, MulMatchesFpOnEveryAllowedRepresentative) {
  SKIP_WITHOUT_IFMA();
  std::mt19937_64 rng(2);
  const auto xs = samples(rng, 200), ys = samples(rng, 200);
  std::size_t checked = 0;
  for (std::size_t i = 0; i < xs.size(); i += 8) {
    for (unsigned ka = 0; ka < 4; ++ka) {    // a < 4p
      for (unsigned kb = 0; kb < 2; ++kb) {  // b < 2p
        Lanes a, b, out;
        for (std::size_t j = 0; j < 8; ++j) {
          a.set(j, lazy(xs[(i + j) % xs.size()], ka));
          b.set(j, lazy(ys[(i + 3 * j) % ys.size()], kb));
        }
        apply(Op::kMul, a, b, out);
        for (std::size_t j = 0; j < 8; ++j) {
          const Fp want = xs[(i + j) % xs.size()] * ys[(i + 3 * j) % ys.size()];
          EXPECT_TRUE(below(out.get(j), 2)) << "mul left [0, 2p): i=" << i + j << " ka=" << ka;
          EXPECT_EQ(reduce(out.get(j)), want) << "i=" << i + j << " ka=" << ka << " kb=" << kb;
          ++checked;
        }
      }
    }
  }
  EXPECT_EQ(checked, 25u * 8 * 8);
}

TEST(FpX8, MulOfLargestRepresentativesStaysBelow2P) {
  SKIP_WITHOUT_IFMA();
  // 4p − 1 and 2p − 1: the extremes of mul's input bounds.
  BigInt<6> one_int{};
  one_int[0] = 1;
  Words a4 = lazy(Fp::zero(), 4), b2 = lazy(Fp::zero(), 2);
  bigint_sub(a4, one_int);
  bigint_sub(b2, one_int);
  Lanes a, b, out;
  for (std::size_t j = 0; j < 8; ++j) {
    a.set(j, a4);
    b.set(j, b2);
  }
  apply(Op::kMul, a, b, out);
  const Fp want = reduce(a4) * reduce(b2);
  for (std::size_t j = 0; j < 8; ++j) {
    EXPECT_TRUE(below(out.get(j), 2));
    EXPECT_EQ(reduce(out.get(j)), want);
  }
}

TEST(FpX8, AddSubAndCanonicalMatchFp) {
  SKIP_WITHOUT_IFMA();
  std::mt19937_64 rng(3);
  const auto xs = samples(rng, 96), ys = samples(rng, 96);
  for (std::size_t i = 0; i < xs.size(); i += 8) {
    for (unsigned ka = 0; ka < 2; ++ka) {
      Lanes a, b, sub_p, add_sub, canon_in, canon;
      for (std::size_t j = 0; j < 8; ++j) {
        a.set(j, lazy(xs[i + j], ka));  // a < 2p
        b.set(j, lazy(ys[i + j], 0));   // b < p
        canon_in.set(j, lazy(xs[i + j], (ka + 2 * j) % 4));  // [0, 4p)
      }
      apply(Op::kSubP, a, b, sub_p);        // a + p − b in (0, 3p)
      apply(Op::kAddThenSub2P, a, b, add_sub);  // (a + b) + 2p − b in (0, 4p + p)
      apply(Op::kCanonical, canon_in, canon_in, canon);
      for (std::size_t j = 0; j < 8; ++j) {
        EXPECT_TRUE(below(sub_p.get(j), 3));
        EXPECT_EQ(reduce(sub_p.get(j)), xs[i + j] - ys[i + j]) << i + j;
        EXPECT_EQ(reduce(add_sub.get(j)), xs[i + j]) << i + j;
        EXPECT_EQ(canon.get(j), Words(xs[i + j].mont)) << "canonical, lane " << j;
      }
    }
  }
}

// ---- Fp2X8 ----

struct Lanes2 {
  alignas(64) std::uint64_t words[12 * 8];
  void set(std::size_t lane, const Words& c0, const Words& c1) {
    for (std::size_t k = 0; k < 6; ++k) {
      words[8 * k + lane] = c0[k];
      words[8 * (6 + k) + lane] = c1[k];
    }
  }
  Fp2 get_reduced(std::size_t lane, bool* below_2p) const {
    Words c0, c1;
    for (std::size_t k = 0; k < 6; ++k) {
      c0[k] = words[8 * k + lane];
      c1[k] = words[8 * (6 + k) + lane];
    }
    *below_2p = below(c0, 2) && below(c1, 2);
    return {reduce(c0), reduce(c1)};
  }
};

enum class Op2 { kMul, kSqr };

PROOFLAB_IFMA_TARGET void apply2(Op2 op, const Lanes2& a, const Lanes2& b, Lanes2& out) {
  const Fp2X8 x = Fp2X8::load(a.words), y = Fp2X8::load(b.words);
  x8_store(op == Op2::kMul ? x8_mul(x, y) : x8_sqr(x), out.words);
}

TEST(Fp2X8, MulAndSqrMatchFp2OnLazyRepresentatives) {
  SKIP_WITHOUT_IFMA();
  std::mt19937_64 rng(4);
  const auto xs = samples(rng, 64), ys = samples(rng, 64);
  for (std::size_t i = 0; i + 16 <= xs.size(); i += 8) {
    for (unsigned k = 0; k < 4; ++k) {  // every component in [0, 2p), both representatives
      Lanes2 a, b, prod, sq;
      std::vector<Fp2> fa, fb;
      for (std::size_t j = 0; j < 8; ++j) {
        fa.push_back({xs[i + j], ys[i + j + 8]});
        fb.push_back({ys[i + j], xs[i + j + 8]});
        a.set(j, lazy(fa[j].c0, k & 1), lazy(fa[j].c1, (k >> 1) & 1));
        b.set(j, lazy(fb[j].c0, (k >> 1) & 1), lazy(fb[j].c1, k & 1));
      }
      apply2(Op2::kMul, a, b, prod);
      apply2(Op2::kSqr, a, a, sq);
      for (std::size_t j = 0; j < 8; ++j) {
        bool ok_mul = false, ok_sqr = false;
        EXPECT_EQ(prod.get_reduced(j, &ok_mul), fa[j] * fb[j]) << "mul i=" << i + j << " k=" << k;
        EXPECT_EQ(sq.get_reduced(j, &ok_sqr), fa[j].square()) << "sqr i=" << i + j << " k=" << k;
        EXPECT_TRUE(ok_mul && ok_sqr) << "results must stay below 2p: i=" << i + j;
      }
    }
  }
}

// ---- FrX8 (five 52-bit limbs, R = 2^256: products reduced to [0, r) at once) ----

PROOFLAB_IFMA_TARGET void fr_ops(const std::uint64_t* a, const std::uint64_t* b,
                                 std::uint64_t* mul, std::uint64_t* sum, std::uint64_t* diff) {
  using L = x8::Layout<FrParams>;
  const FrX8 x = FrX8::load(a), y = FrX8::load(b);
  x8_store(x8_mul(x, y), mul);
  x8_store(x8::subtract_if_not_below(x8_add(x, y), L::kP), sum);
  x8_store(x8::subtract_if_not_below(x8_sub(x, y, L::kP), L::kP), diff);
}

TEST(FrX8, MulAddSubMatchFr) {
  SKIP_WITHOUT_IFMA();
  std::mt19937_64 rng(5);
  std::vector<Fr> xs = {Fr::zero(), Fr::one(), -Fr::one(), Fr::from_mont({1, 0, 0, 0})};
  while (xs.size() < 256) xs.push_back(Fr::random(rng));
  for (std::size_t i = 0; i + 8 <= xs.size(); i += 8) {
    alignas(64) std::uint64_t a[32], b[32], mul[32], sum[32], diff[32];
    for (std::size_t j = 0; j < 8; ++j)
      for (std::size_t k = 0; k < 4; ++k) {
        a[8 * k + j] = xs[i + j].mont[k];
        b[8 * k + j] = xs[(i + 5 * j + 3) % xs.size()].mont[k];
      }
    fr_ops(a, b, mul, sum, diff);
    for (std::size_t j = 0; j < 8; ++j) {
      const Fr x = xs[i + j], y = xs[(i + 5 * j + 3) % xs.size()];
      BigInt<4> m, s, d;
      for (std::size_t k = 0; k < 4; ++k) {
        m[k] = mul[8 * k + j];
        s[k] = sum[8 * k + j];
        d[k] = diff[8 * k + j];
      }
      EXPECT_EQ(m, (x * y).mont) << "mul, i=" << i + j;  // canonical: equal limbs
      EXPECT_EQ(s, (x + y).mont) << "add, i=" << i + j;
      EXPECT_EQ(d, (x - y).mont) << "sub, i=" << i + j;
    }
  }
}

}  // namespace
