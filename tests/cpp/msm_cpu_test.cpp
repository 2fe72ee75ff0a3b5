// core/msm against the naive Σ scalar_mul reference: random inputs at several sizes, forced
// window widths and thread counts, degenerate inputs (zeros, ones, repeated bases, bases at
// infinity, extreme scalars), and the building blocks (GLV split, λ map, digits, batch_add).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <span>
#include <utility>
#include <vector>

#include "core/curve/g1.hpp"
#include "core/curve/g2.hpp"
#include "core/curve/scalar_mul.hpp"
#include "core/msm/batch_affine.hpp"
#include "core/msm/batch_affine_x8.hpp"
#include "core/msm/glv.hpp"
#include "core/msm/inverse.hpp"
#include "core/msm/msm.hpp"
#include "core/msm/windows.hpp"
#include "core/parallel/thread_pool.hpp"

namespace {

using namespace prooflab;
using curve::G1Affine;
using curve::G1Curve;
using curve::G2Affine;
using curve::G2Curve;
using field::u128;
using msm::MsmConfig;
using msm::Scalar;

// Debug and sanitizer builds run the arithmetic 10-30x slower: smaller inputs there.
#if !defined(NDEBUG) || defined(__SANITIZE_ADDRESS__)
constexpr bool kSlow = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
constexpr bool kSlow = true;
#else
constexpr bool kSlow = false;
#endif
#else
constexpr bool kSlow = false;
#endif
constexpr std::size_t scaled(std::size_t release, std::size_t slow) {
  return kSlow ? slow : release;
}

constexpr Scalar kR = field::FrParams::kModulus;
constexpr Scalar kLambda = {0x0000000100000000ULL, 0xac45a4010001a402ULL, 0, 0};  // x²

std::mt19937_64 rng_for(const char* name) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const char* c = name; *c; ++c) h = (h ^ static_cast<unsigned char>(*c)) * 0x100000001b3ULL;
  return std::mt19937_64(h);
}

Scalar random_scalar(std::mt19937_64& rng) { return field::Fr::random(rng).to_canonical(); }

template <class Curve>
curve::Affine<Curve> generator();
template <>
G1Affine generator<G1Curve>() {
  return curve::g1_generator();
}
template <>
G2Affine generator<G2Curve>() {
  return curve::g2_generator();
}

// n points of the prime-order subgroup: a random multiple of the generator, then a chain of
// cheap additions of another one (no per-point scalar multiplication).
template <class Curve>
std::vector<curve::Affine<Curve>> random_bases(std::size_t n, std::mt19937_64& rng) {
  using Jac = curve::Jacobian<Curve>;
  const Jac g = Jac::from_affine(generator<Curve>());
  const Jac step = curve::scalar_mul(g, random_scalar(rng));
  Jac p = curve::scalar_mul(g, random_scalar(rng));
  std::vector<Jac> jac(n);
  for (auto& q : jac) {
    q = p;
    p = p.add(step);
  }
  std::vector<curve::Affine<Curve>> out(n);
  curve::batch_to_affine<Curve>(jac, out);
  return out;
}

std::vector<Scalar> random_scalars(std::size_t n, std::mt19937_64& rng) {
  std::vector<Scalar> k(n);
  for (auto& s : k) s = random_scalar(rng);
  return k;
}

template <class Curve>
curve::Jacobian<Curve> msm_naive(std::span<const curve::Affine<Curve>> bases,
                                 std::span<const Scalar> scalars) {
  auto acc = curve::Jacobian<Curve>::infinity();
  for (std::size_t i = 0; i < bases.size(); ++i)
    acc = acc.add(curve::scalar_mul(curve::Jacobian<Curve>::from_affine(bases[i]), scalars[i]));
  return acc;
}

template <class Curve>
void expect_msm_matches(const std::vector<curve::Affine<Curve>>& bases,
                        const std::vector<Scalar>& scalars, const char* what) {
  const auto expected = msm_naive<Curve>(bases, scalars);
  parallel::ThreadPool one(1), three(3);
  const std::vector<unsigned> windows =
      kSlow ? std::vector<unsigned>{0, 5} : std::vector<unsigned>{0, 1, 4, 7, 13};
  // Both adders: the 8-lane one is the default where the CPU has IFMA.
  for (bool simd : {true, false}) {
    for (bool glv : {true, false}) {
      for (unsigned c : windows) {
        for (parallel::ThreadPool* pool : {&one, &three}) {
          MsmConfig cfg;
          cfg.window_bits = c;
          cfg.use_endomorphism = glv;
          cfg.simd = simd;
          const auto got = msm::msm<Curve>(bases, scalars, *pool, cfg);
          EXPECT_TRUE(got == expected) << what << ": n=" << bases.size() << " c=" << c
                                       << " glv=" << glv << " simd=" << simd
                                       << " threads=" << pool->size();
        }
      }
    }
  }
}

// ---- building blocks ----

TEST(MsmGlv, Div2by1MatchesU128Division) {
  auto rng = rng_for("div");
  const msm::Reciprocal64 r(curve::kBlsXAbs);
  for (int i = 0; i < 10000; ++i) {
    const std::uint64_t hi = rng() % curve::kBlsXAbs, lo = rng();
    std::uint64_t rem;
    const std::uint64_t q = msm::div_2by1(hi, lo, r, rem);
    const u128 u = (static_cast<u128>(hi) << 64) | lo;
    ASSERT_EQ(q, static_cast<std::uint64_t>(u / curve::kBlsXAbs));
    ASSERT_EQ(rem, static_cast<std::uint64_t>(u % curve::kBlsXAbs));
  }
}

TEST(MsmGlv, SplitRecomposesAndIsShort) {
  auto rng = rng_for("split");
  const u128 lambda = (static_cast<u128>(kLambda[1]) << 64) | kLambda[0];
  std::vector<Scalar> ks = {Scalar{},
                            Scalar{1, 0, 0, 0},
                            kLambda,
                            field::bigint_sub_small(kLambda, 1),
                            field::bigint_sub_small(kR, 1),
                            field::bigint_shr(field::bigint_sub_small(kR, 1), 1)};
  for (int i = 0; i < 2000; ++i) ks.push_back(random_scalar(rng));
  for (const Scalar& k : ks) {
    const msm::SplitScalar s = msm::glv_split(k);
    ASSERT_LT(s.k1, lambda);
    ASSERT_LT(s.k2, lambda);
    // k2·λ + k1 as 4 limbs
    const u128 a0 = static_cast<u128>(static_cast<std::uint64_t>(s.k2)) * kLambda[0];
    const u128 a1 = static_cast<u128>(static_cast<std::uint64_t>(s.k2)) * kLambda[1];
    const u128 b0 = static_cast<u128>(static_cast<std::uint64_t>(s.k2 >> 64)) * kLambda[0];
    const u128 b1 = static_cast<u128>(static_cast<std::uint64_t>(s.k2 >> 64)) * kLambda[1];
    Scalar prod{};
    Scalar t0 = {static_cast<std::uint64_t>(a0), static_cast<std::uint64_t>(a0 >> 64), 0, 0};
    Scalar t1 = {0, static_cast<std::uint64_t>(a1), static_cast<std::uint64_t>(a1 >> 64), 0};
    Scalar t2 = {0, static_cast<std::uint64_t>(b0), static_cast<std::uint64_t>(b0 >> 64), 0};
    Scalar t3 = {0, 0, static_cast<std::uint64_t>(b1), static_cast<std::uint64_t>(b1 >> 64)};
    Scalar t4 = {static_cast<std::uint64_t>(s.k1), static_cast<std::uint64_t>(s.k1 >> 64), 0, 0};
    for (const Scalar* t : {&t0, &t1, &t2, &t3, &t4}) field::bigint_add(prod, *t);
    ASSERT_EQ(prod, k);
  }
}

TEST(MsmGlv, LambdaMapIsMultiplicationByXSquared) {
  auto rng = rng_for("lambda");
  for (const auto& p : random_bases<G1Curve>(3, rng)) {
    const auto expected = curve::scalar_mul(curve::G1Jacobian::from_affine(p), kLambda);
    EXPECT_TRUE(curve::G1Jacobian::from_affine(msm::LambdaMap<G1Curve>::apply(p)) == expected);
  }
  for (const auto& p : random_bases<G2Curve>(3, rng)) {
    const auto expected = curve::scalar_mul(curve::G2Jacobian::from_affine(p), kLambda);
    EXPECT_TRUE(curve::G2Jacobian::from_affine(msm::LambdaMap<G2Curve>::apply(p)) == expected);
  }
  EXPECT_TRUE(msm::LambdaMap<G1Curve>::apply(G1Affine::infinity()).is_infinity());
  EXPECT_TRUE(msm::LambdaMap<G2Curve>::apply(G2Affine::infinity()).is_infinity());
}

TEST(MsmWindows, DigitsTelescopeToTheScalar) {
  auto rng = rng_for("digits");
  for (unsigned bits : {1u, 2u, 5u, 64u, 127u, 128u}) {
    std::vector<msm::WindowPlan> plans;
    for (unsigned c = 1; c <= 24; ++c) plans.push_back(msm::make_window_plan(bits, c));
    for (std::size_t m : {2, 100, 1 << 12, 1 << 17, 1 << 21, 1 << 25})
      plans.push_back(msm::MsmCostModel{}.best_plan(m, bits));  // uneven widths
    for (const auto& plan : plans) {
      unsigned covered = 0;
      for (const auto& w : plan.window) {
        ASSERT_EQ(w.offset, covered);
        covered += w.width;
      }
      ASSERT_EQ(covered, bits);
      for (int i = 0; i < 50; ++i) {
        u128 k = (static_cast<u128>(rng()) << 64) | rng();
        if (bits < 128) k &= (u128{1} << bits) - 1;
        if (i == 0) k = bits == 128 ? ~u128{0} : (u128{1} << bits) - 1;  // all ones
        const std::array<std::uint64_t, 2> limbs = {static_cast<std::uint64_t>(k),
                                                    static_cast<std::uint64_t>(k >> 64)};
        u128 sum = 0;
        for (const msm::Window& w : plan.window) {
          const std::int64_t d = msm::window_digit(limbs, w);
          const std::int64_t bound = w.buckets();
          ASSERT_LE(d, bound);
          ASSERT_GE(d, w.top ? 0 : -bound);
          sum += static_cast<u128>(static_cast<__int128>(d)) << w.offset;
        }
        ASSERT_TRUE(sum == k) << "bits=" << bits << " windows=" << plan.windows();
      }
    }
  }
}

TEST(MsmInverse, VartimeMatchesFermat) {
  auto rng = rng_for("inverse");
  using field::Fp;
  using field::Fr;
  std::vector<Fp> xs = {Fp::one(), -Fp::one(), Fp::from_u64(2), Fp::from_u64(3),
                        Fp::from_mont(field::BigInt<6>{1, 0, 0, 0, 0, 0})};
  for (int i = 0; i < 2000; ++i) xs.push_back(Fp::random(rng));
  for (const Fp& x : xs) ASSERT_EQ(msm::inverse_vartime(x), x.inverse());
  EXPECT_TRUE(msm::inverse_vartime(Fp::zero()).is_zero());
  for (int i = 0; i < 500; ++i) {
    const Fr x = Fr::random(rng);
    ASSERT_EQ(msm::inverse_vartime(x), x.inverse());
    const field::Fp2 y = field::Fp2::random(rng);
    ASSERT_EQ(msm::inverse_vartime(y), y.inverse());
  }
  EXPECT_EQ(msm::inverse_vartime(-Fr::one()), (-Fr::one()).inverse());
}

// ---- the 8-lane IFMA batch adder against the scalar one and the Jacobian formulas ----

template <class Curve>
void x8_adder_matches_scalar_adder(const char* name) {
  using Point = curve::Affine<Curve>;
  using Jac = curve::Jacobian<Curve>;
  if (!msm::BatchAffineAdderX8<Curve>::available())
    GTEST_SKIP() << "this CPU has no AVX-512 IFMA: the 8-lane adder is not used here";
  auto rng = rng_for(name);
  const auto pts = random_bases<Curve>(40, rng);
  const Point inf = Point::infinity();
  struct Add {
    const Point* a;
    bool neg_a;
    const Point* b;
    bool neg_b;
  };
  std::vector<Add> adds;
  for (int i = 0; i < 300; ++i) {
    const Point* a = &pts[rng() % pts.size()];
    const Point* b = &pts[rng() % pts.size()];
    switch (i % 10) {
      case 0: b = a; break;         // doubling, or P + (−P) with the signs below
      case 1: a = &inf; break;      // infinity operands
      case 2: b = &inf; break;
      case 3: a = b = &inf; break;
      default: break;
    }
    adds.push_back({a, (rng() & 1) != 0, b, (rng() & 1) != 0});
  }
  for (std::size_t capacity : {1, 3, 8, 9, 64, 1000}) {
    std::vector<Point> want(adds.size()), got(adds.size());
    msm::BatchAffineAdder<Curve> scalar(capacity);
    msm::BatchAffineAdderX8<Curve> x8(capacity);
    for (std::size_t i = 0; i < adds.size(); ++i) {
      const Add& e = adds[i];
      scalar.push(e.a, e.neg_a, e.b, e.neg_b, &want[i]);
      x8.push(e.a, e.neg_a, e.b, e.neg_b, &got[i]);
    }
    scalar.flush();
    x8.flush();
    for (std::size_t i = 0; i < adds.size(); ++i) {
      ASSERT_TRUE(got[i] == want[i]) << "addition " << i << ", capacity " << capacity;
      const Add& e = adds[i];
      const auto signed_point = [](const Point* p, bool neg) { return neg ? -*p : *p; };
      const auto sum = Jac::from_affine(signed_point(e.a, e.neg_a)).add_mixed(signed_point(e.b, e.neg_b));
      ASSERT_TRUE(Jac::from_affine(got[i]) == sum) << "addition " << i;
    }
  }
}

TEST(MsmBatchAffineX8, G1MatchesScalarAdderOnEveryCase) {
  x8_adder_matches_scalar_adder<G1Curve>("x8 adder g1");
}
TEST(MsmBatchAffineX8, G2MatchesScalarAdderOnEveryCase) {
  x8_adder_matches_scalar_adder<G2Curve>("x8 adder g2");
}

// ---- MSM against the reference ----

TEST(MsmG1, RandomInputsMatchNaive) {
  auto rng = rng_for("g1 random");
  for (std::size_t n : {1, 2, 3, 17, 100}) {
    const auto bases = random_bases<G1Curve>(n, rng);
    const auto scalars = random_scalars(n, rng);
    expect_msm_matches<G1Curve>(bases, scalars, "random");
  }
}

TEST(MsmG1, LargerInputsMatchNaive) {
  auto rng = rng_for("g1 larger");
  parallel::ThreadPool one(1), three(3);
  for (std::size_t n : {scaled(1000, 200), scaled(4096, 300)}) {
    const auto bases = random_bases<G1Curve>(n, rng);
    const auto scalars = random_scalars(n, rng);
    const auto expected = msm_naive<G1Curve>(bases, scalars);
    for (unsigned c : {0u, 9u, 16u}) {
      for (parallel::ThreadPool* pool : {&one, &three}) {
        for (bool simd : {true, false}) {
          MsmConfig cfg;
          cfg.window_bits = c;
          cfg.simd = simd;
          EXPECT_TRUE(msm::msm<G1Curve>(bases, scalars, *pool, cfg) == expected)
              << "n=" << n << " c=" << c << " threads=" << pool->size() << " simd=" << simd;
        }
      }
    }
  }
}

TEST(MsmG1, TinyBatchesAndChunksSplitLongBuckets) {
  // chunk 4 cuts every bucket of more than 4 points into pieces summed in a second round;
  // batch 3 flushes in the middle of tree levels.
  auto rng = rng_for("g1 tiny chunks");
  const std::size_t n = 300;
  const auto bases = random_bases<G1Curve>(n, rng);
  auto scalars = random_scalars(n, rng);
  for (std::size_t i = 0; i < n; i += 3) scalars[i] = Scalar{1, 0, 0, 0};
  const auto expected = msm_naive<G1Curve>(bases, scalars);
  parallel::ThreadPool one(1), three(3);
  const std::pair<std::size_t, std::size_t> chunk_batch[] = {{2, 1}, {4, 3}, {33, 64}, {4, 64}};
  for (const auto& [chunk, batch] : chunk_batch) {
    for (parallel::ThreadPool* pool : {&one, &three}) {
      for (bool simd : {true, false}) {
        MsmConfig cfg;
        cfg.window_bits = 8;
        cfg.chunk_points = chunk;
        cfg.batch_size = batch;
        cfg.simd = simd;
        EXPECT_TRUE(msm::msm<G1Curve>(bases, scalars, *pool, cfg) == expected)
            << "chunk=" << chunk << " batch=" << batch << " threads=" << pool->size()
            << " simd=" << simd;
      }
    }
  }
}

TEST(MsmG2, RandomInputsMatchNaive) {
  auto rng = rng_for("g2 random");
  for (std::size_t n : {std::size_t{1}, std::size_t{3}, std::size_t{17}, scaled(100, 20)}) {
    const auto bases = random_bases<G2Curve>(n, rng);
    const auto scalars = random_scalars(n, rng);
    expect_msm_matches<G2Curve>(bases, scalars, "random");
  }
}

TEST(MsmG1, EmptyInputIsInfinity) {
  parallel::ThreadPool pool(2);
  EXPECT_TRUE(msm::msm<G1Curve>({}, {}, pool).is_infinity());
  EXPECT_TRUE(msm::msm<G2Curve>({}, {}, pool).is_infinity());
}

template <class Curve>
void degenerate_inputs(const char* name) {
  auto rng = rng_for(name);
  const std::size_t n = scaled(200, 40);
  const auto bases = random_bases<Curve>(n, rng);
  const Scalar zero{}, one{1, 0, 0, 0};
  const Scalar r_minus_1 = field::bigint_sub_small(kR, 1);
  const Scalar half = field::bigint_shr(r_minus_1, 1);

  expect_msm_matches<Curve>(bases, std::vector<Scalar>(n, zero), "all zero");
  expect_msm_matches<Curve>(bases, std::vector<Scalar>(n, one), "all one");
  expect_msm_matches<Curve>(bases, std::vector<Scalar>(n, r_minus_1), "all r-1");
  expect_msm_matches<Curve>(bases, std::vector<Scalar>(n, half), "all (r-1)/2");

  std::vector<Scalar> mixed(n);
  for (auto& k : mixed) {
    switch (rng() % 4) {
      case 0:
        k = zero;
        break;
      case 1:
        k = one;
        break;
      case 2:
        k = r_minus_1;
        break;
      default:
        k = random_scalar(rng);
    }
  }
  expect_msm_matches<Curve>(bases, mixed, "mixed 0/1/r-1/random");

  // The same base many times with the same scalar: equal points meet in every bucket tree,
  // so the trees must double; with k and r − k the points cancel.
  std::vector<curve::Affine<Curve>> repeated(n, bases[0]);
  const Scalar k = random_scalar(rng);
  expect_msm_matches<Curve>(repeated, std::vector<Scalar>(n, k), "repeated base, same scalar");
  std::vector<Scalar> plus_minus(n);
  Scalar neg_k = kR;
  field::bigint_sub(neg_k, k);
  for (std::size_t i = 0; i < n; ++i) plus_minus[i] = i % 2 ? k : neg_k;
  expect_msm_matches<Curve>(repeated, plus_minus, "repeated base, k and r-k");
  std::vector<curve::Affine<Curve>> few(n);
  for (std::size_t i = 0; i < n; ++i) few[i] = bases[i % 3];
  expect_msm_matches<Curve>(few, random_scalars(n, rng), "three bases repeated");
  expect_msm_matches<Curve>(few, std::vector<Scalar>(n, one), "three bases repeated, ones");

  // Bases at infinity, some of them and all of them.
  auto holes = bases;
  for (std::size_t i = 0; i < n; i += 2) holes[i] = curve::Affine<Curve>::infinity();
  expect_msm_matches<Curve>(holes, random_scalars(n, rng), "half the bases at infinity");
  expect_msm_matches<Curve>(std::vector<curve::Affine<Curve>>(n, curve::Affine<Curve>::infinity()),
                            random_scalars(n, rng), "all bases at infinity");

  // A point and its negation in one input.
  std::vector<curve::Affine<Curve>> pm = {bases[1], -bases[1], bases[2]};
  expect_msm_matches<Curve>(pm, {k, k, k}, "P and -P");
}

TEST(MsmG1, DegenerateInputs) { degenerate_inputs<G1Curve>("g1 degenerate"); }
TEST(MsmG2, DegenerateInputs) { degenerate_inputs<G2Curve>("g2 degenerate"); }

TEST(MsmScalars, ToScalarsIsCanonical) {
  auto rng = rng_for("to scalars");
  std::vector<field::Fr> fr(5000);
  for (auto& f : fr) f = field::Fr::random(rng);
  parallel::ThreadPool pool(3);
  const auto k = msm::to_scalars(fr, pool);
  ASSERT_EQ(k.size(), fr.size());
  for (std::size_t i = 0; i < fr.size(); ++i) ASSERT_EQ(k[i], fr[i].to_canonical());
}

// ---- batch_add ----

template <class Curve>
curve::Jacobian<Curve> naive_sum(std::span<const curve::Affine<Curve>> bases,
                                 const std::vector<bool>& take) {
  auto acc = curve::Jacobian<Curve>::infinity();
  for (std::size_t i = 0; i < bases.size(); ++i)
    if (take[i]) acc = acc.add_mixed(bases[i]);
  return acc;
}

template <class Curve>
void batch_add_matches(std::size_t n, double density, std::mt19937_64& rng) {
  const auto bases = random_bases<Curve>(n, rng);
  std::vector<bool> take(n);
  std::vector<std::uint64_t> bitmap((n + 63) / 64, 0);
  std::bernoulli_distribution coin(density);
  for (std::size_t i = 0; i < n; ++i) {
    take[i] = coin(rng);
    if (take[i]) bitmap[i / 64] |= std::uint64_t{1} << (i % 64);
  }
  const auto expected = naive_sum<Curve>(bases, take);
  parallel::ThreadPool one(1), three(3);
  for (parallel::ThreadPool* pool : {&one, &three}) {
    for (std::size_t chunk : {std::size_t{8}, std::size_t{8192}}) {
      for (bool simd : {true, false}) {
        MsmConfig cfg;
        cfg.chunk_points = chunk;
        cfg.simd = simd;
        EXPECT_TRUE(msm::batch_add<Curve>(bases, bitmap, *pool, cfg) == expected)
            << "n=" << n << " density=" << density << " threads=" << pool->size()
            << " chunk=" << chunk << " simd=" << simd;
      }
    }
  }
}

TEST(MsmBatchAdd, G1RandomEmptyAndFullBitmaps) {
  auto rng = rng_for("batch add g1");
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{63}, std::size_t{64},
                        std::size_t{65}, scaled(5000, 700)}) {
    for (double density : {0.0, 0.03, 0.5, 1.0}) batch_add_matches<G1Curve>(n, density, rng);
  }
}

TEST(MsmBatchAdd, G2RandomBitmaps) {
  auto rng = rng_for("batch add g2");
  for (double density : {0.0, 0.5, 1.0}) batch_add_matches<G2Curve>(scaled(300, 60), density, rng);
}

TEST(MsmBatchAdd, IndicesWithRepeatsAndInfinity) {
  auto rng = rng_for("batch add indices");
  auto bases = random_bases<G1Curve>(50, rng);
  bases[7] = G1Affine::infinity();
  bases[8] = -bases[9];
  std::vector<std::uint32_t> indices;
  for (int i = 0; i < 400; ++i) indices.push_back(static_cast<std::uint32_t>(rng() % 50));
  for (int i = 0; i < 20; ++i) indices.push_back(3);  // forces doublings
  indices.push_back(8);
  indices.push_back(9);
  auto expected = curve::G1Jacobian::infinity();
  for (auto i : indices) expected = expected.add_mixed(bases[i]);
  parallel::ThreadPool one(1), three(3);
  for (parallel::ThreadPool* pool : {&one, &three}) {
    for (std::size_t chunk : {std::size_t{2}, std::size_t{5}, std::size_t{8192}}) {
      for (bool simd : {true, false}) {
        MsmConfig cfg;
        cfg.chunk_points = chunk;
        cfg.simd = simd;
        EXPECT_TRUE(msm::batch_add_indices<G1Curve>(bases, indices, *pool, cfg) == expected)
            << "threads=" << pool->size() << " chunk=" << chunk << " simd=" << simd;
      }
    }
  }
  EXPECT_TRUE(msm::batch_add_indices<G1Curve>(bases, {}, one).is_infinity());
}

}  // namespace
