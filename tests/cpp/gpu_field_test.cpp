// The device field arithmetic against core/field: the constants and the shared Montgomery
// layout (no GPU needed), the device code itself run on the host through the emulated
// carry chain (no GPU needed), and every device operation on the GPU where there is one
// (elsewhere those cases skip with the runtime's reason).
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/field/fp.hpp"
#include "core/field/fr.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_info.hpp"
#include "gpu/field/field_ops.hpp"
#include "gpu/memory/device_allocator.hpp"
#include "gpu_test_util.hpp"

namespace {

using prooflab::field::Fp;
using prooflab::field::FpParams;
using prooflab::field::Fr;
using prooflab::field::FrParams;
using prooflab::gpu::field::FieldOp;
using prooflab::gpu::field::Fp32;
using prooflab::gpu::field::FpParams32;
using prooflab::gpu::field::Fr32;
using prooflab::gpu::field::FrParams32;

// The CPU type and the device type of one field.
template <class Cpu, class Dev, class CpuParams, class DevParams>
struct FieldPair {
  using C = Cpu;
  using D = Dev;
  using CP = CpuParams;
  using DP = DevParams;
};
using FrPair = FieldPair<Fr, Fr32, FrParams, FrParams32>;
using FpPair = FieldPair<Fp, Fp32, FpParams, FpParams32>;

template <class D, class C>
D to_dev(const C& x) {
  static_assert(sizeof(D) == sizeof(x.mont));
  D d;
  std::memcpy(d.v, x.mont.data(), sizeof(d.v));
  return d;
}
template <class C, class D>
C to_cpu(const D& d) {
  C x;
  std::memcpy(x.mont.data(), d.v, sizeof(d.v));
  return x;
}
template <class C>
C from_limbs(const typename C::Limbs& limbs) {  // any limbs as a Montgomery form
  return C::from_mont(limbs);
}

// Field elements that stress carries and reductions: 0, 1, -1, 2, small and large raw
// Montgomery forms (1 = R^-1, m-1, m-2, 2^(bits-1)), and values near 2^32 multiples.
template <class C>
std::vector<C> edge_values() {
  std::vector<C> v = {C::zero(), C::one(), -C::one(), C::from_u64(2), C::one().half()};
  typename C::Limbs l{};
  l[0] = 1;
  v.push_back(from_limbs<C>(l));
  v.push_back(from_limbs<C>(prooflab::field::bigint_sub_small(C::kModulus, 1)));
  v.push_back(from_limbs<C>(prooflab::field::bigint_sub_small(C::kModulus, 2)));
  typename C::Limbs top{};
  top[C::kLimbs - 1] = std::uint64_t{1} << ((C::kBits - 1) % 64);
  v.push_back(from_limbs<C>(top));
  v.push_back(C::from_u64(0xffffffffULL));
  v.push_back(C::from_u64(0x100000000ULL));
  v.push_back(-C::from_u64(0xffffffffULL));
  return v;
}

// a and b: every pair of edge values, then `random` random pairs.
template <class C>
void make_inputs(std::size_t random, std::uint64_t seed, std::vector<C>& a, std::vector<C>& b) {
  const auto e = edge_values<C>();
  for (const auto& x : e)
    for (const auto& y : e) a.push_back(x), b.push_back(y);
  std::mt19937_64 rng(seed);
  for (std::size_t i = 0; i < random; ++i) a.push_back(C::random(rng)), b.push_back(C::random(rng));
  // b with some 32-bit words zero: the Montgomery rows they start have a zero low word
  // (m = 0), the case Fr's reduction treats apart (mont32.cuh, kLowLimbsOneAndMinusOne).
  for (std::size_t i = 0; i < 64; ++i) {
    auto words = C::random(rng).to_canonical();  // 64-bit limbs, < modulus; zeroing keeps that
    const std::uint64_t zero_mask = rng();
    for (std::size_t w = 0; w < 2 * words.size(); ++w)
      if ((zero_mask >> w) & 1) words[w / 2] &= (w % 2) ? 0x00000000ffffffffULL : 0xffffffff00000000ULL;
    a.push_back(C::random(rng));
    b.push_back(from_limbs<C>(words));
  }
}

// What each op must return, computed on the CPU (for kToMont the input is the canonical
// integer of a, for kFromMont the output is the canonical integer of a).
template <class C>
C cpu_op(FieldOp op, const C& a, const C& b) {
  switch (op) {
    case FieldOp::kAdd: return a + b;
    case FieldOp::kSub: return a - b;
    case FieldOp::kNeg: return -a;
    case FieldOp::kDbl: return a.dbl();
    case FieldOp::kMul: return a * b;
    case FieldOp::kSqr: return a.square();
    case FieldOp::kToMont: return a;
    case FieldOp::kFromMont: return C::from_mont(a.to_canonical());
  }
  return C::zero();
}
template <class C>
C input_for(FieldOp op, const C& a) {
  return op == FieldOp::kToMont ? C::from_mont(a.to_canonical()) : a;
}

const FieldOp kAllOps[] = {FieldOp::kAdd, FieldOp::kSub, FieldOp::kNeg, FieldOp::kDbl,
                           FieldOp::kMul, FieldOp::kSqr, FieldOp::kToMont, FieldOp::kFromMont};

template <class D>
D host_op(FieldOp op, const D& a, const D& b) {
  switch (op) {
    case FieldOp::kAdd: return a + b;
    case FieldOp::kSub: return a - b;
    case FieldOp::kNeg: return -a;
    case FieldOp::kDbl: return a.dbl();
    case FieldOp::kMul: return a * b;
    case FieldOp::kSqr: return a.sqr();
    case FieldOp::kToMont: return D::to_mont(a);
    case FieldOp::kFromMont: return D::from_mont(a);
  }
  return D::zero();
}

using Pairs = ::testing::Types<FrPair, FpPair>;
class PairNames {
 public:
  template <class T>
  static std::string GetName(int) {
    return std::is_same_v<T, FrPair> ? "Fr" : "Fp";
  }
};

// ---- layout and constants (no GPU) ----

template <class Pair>
class GpuFieldLayout : public ::testing::Test {};
TYPED_TEST_SUITE(GpuFieldLayout, Pairs, PairNames);

TYPED_TEST(GpuFieldLayout, ConstantsAreTheCpuOnesSplitInto32BitLimbs) {
  using CP = typename TypeParam::CP;
  using DP = typename TypeParam::DP;
  static_assert(DP::kLimbs == 2 * CP::kLimbs);
  for (int i = 0; i < DP::kLimbs; ++i) {
    const int word = i / 2, shift = (i % 2) * 32;
    EXPECT_EQ(DP::modulus(i), static_cast<std::uint32_t>(CP::kModulus[word] >> shift)) << i;
    EXPECT_EQ(DP::one(i), static_cast<std::uint32_t>(CP::kOne[word] >> shift)) << i;
    EXPECT_EQ(DP::r2(i), static_cast<std::uint32_t>(CP::kR2[word] >> shift)) << i;
  }
  EXPECT_EQ(DP::kM0, static_cast<std::uint32_t>(CP::kInv));
  EXPECT_EQ(static_cast<int>(CP::kBits), DP::kBits);
}

TYPED_TEST(GpuFieldLayout, CpuElementsAreDeviceElementsByteForByte) {
  using C = typename TypeParam::C;
  using D = typename TypeParam::D;
  static_assert(sizeof(C) == sizeof(D));
  std::mt19937_64 rng(11);
  for (int i = 0; i < 1000; ++i) {
    const C x = i < 3 ? edge_values<C>()[i] : C::random(rng);
    const D d = to_dev<D>(x);
    // The device's view of the CPU's bytes: leaving Montgomery form gives the canonical value,
    // entering it from the canonical value gives back the CPU's bytes.
    EXPECT_EQ(to_cpu<C>(D::from_mont(d)).mont, x.to_canonical());
    EXPECT_EQ(to_cpu<C>(D::to_mont(to_dev<D>(C::from_mont(x.to_canonical())))), x);
    EXPECT_EQ(to_cpu<C>(D::one()), C::one());
  }
}

// ---- the device code on the host, through the emulated carry chain (no GPU) ----

template <class Pair>
class GpuFieldHostEmulation : public ::testing::Test {};
TYPED_TEST_SUITE(GpuFieldHostEmulation, Pairs, PairNames);

TYPED_TEST(GpuFieldHostEmulation, EveryOpMatchesCpu) {
  using C = typename TypeParam::C;
  using D = typename TypeParam::D;
  std::vector<C> a, b;
  make_inputs<C>(3000, 21, a, b);
  for (FieldOp op : kAllOps) {
    int mismatches = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      const C expect = cpu_op(op, a[i], b[i]);
      const C got = to_cpu<C>(host_op(op, to_dev<D>(input_for(op, a[i])), to_dev<D>(b[i])));
      if (got != expect && ++mismatches <= 3)
        ADD_FAILURE() << prooflab::gpu::field::field_op_name(op) << " at input " << i;
    }
    EXPECT_EQ(mismatches, 0) << prooflab::gpu::field::field_op_name(op);
  }
}

// mul_diff (a·b − c·d; for Fp both products in one Montgomery reduction, mont32.cuh
// mont_mul_sum_lazy): every quadruple of edge values (d = 0 makes m − d = m, the operand's
// largest value; a = c = −1 the largest products), then random quadruples and ones whose d
// has zero 32-bit words.
TYPED_TEST(GpuFieldHostEmulation, MulDiffMatchesCpu) {
  using C = typename TypeParam::C;
  using D = typename TypeParam::D;
  const auto e = edge_values<C>();
  std::vector<C> a, b;
  make_inputs<C>(3000, 51, a, b);
  int mismatches = 0;
  const auto check = [&](const C& w, const C& x, const C& y, const C& z) {
    const C got = to_cpu<C>(D::mul_diff(to_dev<D>(w), to_dev<D>(x), to_dev<D>(y), to_dev<D>(z)));
    if (got != w * x - y * z && ++mismatches <= 3) ADD_FAILURE() << "mul_diff mismatch";
  };
  for (const auto& w : e)
    for (const auto& x : e)
      for (const auto& y : e)
        for (const auto& z : e) check(w, x, y, z);
  for (std::size_t i = 0; i < a.size(); ++i) check(a[i], b[i], b[(i * 7 + 3) % a.size()], a[(i * 13 + 1) % a.size()]);
  for (std::size_t i = 0; i < a.size(); ++i) check(a[i], a[(i + 5) % a.size()], b[(i * 3) % a.size()], b[i]);
  EXPECT_EQ(mismatches, 0);
}

// The lazy domain of the NTT ([0, 2m) representatives): each op, on both representatives of
// every input, reduces to the CPU's result and stays below 2m.
template <class D>
D plus_modulus(const D& x) {  // x + m, as limbs (< 2m for x < m)
  D r;
  std::uint64_t carry = 0;
  for (int i = 0; i < D::N; ++i) {
    const std::uint64_t v = std::uint64_t{x.v[i]} + D::Params::modulus(i) + carry;
    r.v[i] = static_cast<std::uint32_t>(v);
    carry = v >> 32;
  }
  return r;
}
template <class D>
bool below_twice_modulus(const D& x) {
  D two_m{};
  std::uint64_t carry = 0;
  for (int i = 0; i < D::N; ++i) {
    const std::uint64_t v = 2 * std::uint64_t{D::Params::modulus(i)} + carry;
    two_m.v[i] = static_cast<std::uint32_t>(v);
    carry = v >> 32;
  }
  for (int i = D::N - 1; i >= 0; --i)
    if (x.v[i] != two_m.v[i]) return x.v[i] < two_m.v[i];
  return false;
}

TYPED_TEST(GpuFieldHostEmulation, LazyDomainOpsReduceToTheCpuResult) {
  using C = typename TypeParam::C;
  using D = typename TypeParam::D;
  std::vector<C> a, b;
  make_inputs<C>(1000, 41, a, b);
  int bad = 0;
  for (std::size_t i = 0; i < a.size() && bad < 5; ++i) {
    const D ac = to_dev<D>(a[i]), bc = to_dev<D>(b[i]);
    for (const D& al : {ac, plus_modulus(ac)})
      for (const D& bl : {bc, plus_modulus(bc)}) {
        const D sum = D::add_lazy(al, bl), diff = D::sub_lazy(al, bl), prod = D::mul_lazy(ac, bl);
        const bool ok = below_twice_modulus(sum) && below_twice_modulus(diff) && below_twice_modulus(prod) &&
                        to_cpu<C>(sum.canonical()) == a[i] + b[i] && to_cpu<C>(diff.canonical()) == a[i] - b[i] &&
                        to_cpu<C>(prod.canonical()) == a[i] * b[i];
        if (!ok && ++bad <= 3) ADD_FAILURE() << "lazy ops at input " << i;
      }
  }
  EXPECT_EQ(bad, 0);
}

// ---- on the GPU ----

template <class Pair>
class GpuField : public ::testing::Test {};
TYPED_TEST_SUITE(GpuField, Pairs, PairNames);

TYPED_TEST(GpuField, EveryOpMatchesCpu) {
  PROOFLAB_REQUIRE_GPU();
  using C = typename TypeParam::C;
  using D = typename TypeParam::D;
  using prooflab::gpu::check_cuda;
  std::vector<C> a, b;
  make_inputs<C>(4096, 31, a, b);
  const std::size_t n = a.size();
  prooflab::gpu::memory::DeviceAllocator alloc;
  cudaStream_t s = nullptr;
  prooflab::gpu::memory::DeviceBuffer<D> da(alloc, n, s, "test"), db(alloc, n, s, "test"),
      dout(alloc, n, s, "test");
  check_cuda(cudaMemcpy(db.get(), b.data(), n * sizeof(D), cudaMemcpyHostToDevice), "upload b");
  for (FieldOp op : kAllOps) {
    std::vector<C> in(n), expect(n), got(n);
    for (std::size_t i = 0; i < n; ++i) {
      in[i] = input_for(op, a[i]);
      expect[i] = cpu_op(op, a[i], b[i]);
    }
    check_cuda(cudaMemcpy(da.get(), in.data(), n * sizeof(D), cudaMemcpyHostToDevice), "upload a");
    check_cuda(cudaMemset(dout.get(), 0xa5, n * sizeof(D)), "poison");  // every output written?
    prooflab::gpu::field::apply(op, da.get(), db.get(), dout.get(), n, s);
    check_cuda(cudaDeviceSynchronize(), prooflab::gpu::field::field_op_name(op));
    check_cuda(cudaMemcpy(got.data(), dout.get(), n * sizeof(D), cudaMemcpyDeviceToHost), "download");
    int mismatches = 0;
    for (std::size_t i = 0; i < n; ++i)
      if (got[i] != expect[i] && ++mismatches <= 3)
        ADD_FAILURE() << prooflab::gpu::field::field_op_name(op) << " at input " << i;
    EXPECT_EQ(mismatches, 0) << prooflab::gpu::field::field_op_name(op);
  }
  // In place (out aliases a).
  check_cuda(cudaMemcpy(da.get(), a.data(), n * sizeof(D), cudaMemcpyHostToDevice), "upload a");
  prooflab::gpu::field::apply(FieldOp::kMul, da.get(), db.get(), da.get(), n, s);
  std::vector<C> got(n);
  check_cuda(cudaMemcpy(got.data(), da.get(), n * sizeof(D), cudaMemcpyDeviceToHost), "download");
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], a[i] * b[i]) << i;
}

}  // namespace
