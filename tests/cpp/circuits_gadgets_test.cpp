// Boolean and UInt32 gadgets against plain C++: every combination of constant, allocated and
// negated operands for the bit operations (value, satisfiability, constraint count, and that
// a wrong result is caught), and random words for the UInt32 operations.
#include <gtest/gtest.h>

#include "test_util.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include <array>
#include <random>
#include <vector>

#include "core/circuits/boolean.hpp"
#include "core/circuits/multieq.hpp"
#include "core/circuits/multipack.hpp"
#include "core/circuits/uint32.hpp"
#include "core/r1cs/r1cs.hpp"
#include "core/r1cs/satisfiability.hpp"

namespace {

namespace pt = prooflab::test;

using prooflab::field::Fr;
using namespace prooflab::circuits;
using prooflab::r1cs::ConstraintSystem;
using prooflab::r1cs::Mode;

bool satisfied(const ConstraintSystem& cs) {
  return !prooflab::r1cs::first_unsatisfied(prooflab::r1cs::compile(cs), cs.witness()).has_value();
}

// The Boolean views of a value: 0 constant, 1 allocated, 2 negation of an allocated bit.
constexpr int kViews = 3;
Boolean make(ConstraintSystem& cs, int view, bool value) {
  switch (view) {
    case 0:
      return Boolean::constant(value);
    case 1:
      return Boolean::alloc(cs, value);
    default:
      return !Boolean::alloc(cs, !value);
  }
}
const char* view_name(int view) { return view == 0 ? "constant" : view == 1 ? "is" : "not"; }

TEST(Boolean, AllocIsConstrainedToABit) {
  ConstraintSystem cs(Mode::kBoth);
  const Boolean b = Boolean::alloc(cs, true);
  EXPECT_EQ(cs.num_constraints(), 1u);
  EXPECT_TRUE(satisfied(cs));
  auto r1cs = prooflab::r1cs::compile(cs);
  auto w = cs.witness();
  w.aux[b.variable().index] = Fr::from_u64(2);
  const auto bad = prooflab::r1cs::first_unsatisfied(r1cs, w);
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->annotation, "boolean");
}

// op over every view and value combination; `expected` the plain result, `free` whether the
// combination must cost nothing (constants fold).
template <class Op, class Expected>
void check_binary(const char* name, Op op, Expected expected) {
  for (int va = 0; va < kViews; ++va)
    for (int vb = 0; vb < kViews; ++vb)
      for (int a = 0; a < 2; ++a)
        for (int b = 0; b < 2; ++b) {
          SCOPED_TRACE(std::string(name) + " " + view_name(va) + "(" + std::to_string(a) + "), " +
                       view_name(vb) + "(" + std::to_string(b) + ")");
          ConstraintSystem cs(Mode::kBoth);
          const Boolean x = make(cs, va, a), y = make(cs, vb, b);
          const std::size_t before = cs.num_constraints();
          const Boolean r = op(cs, x, y);
          EXPECT_EQ(r.value(), expected(a, b));
          EXPECT_EQ(cs.num_constraints() - before, (va == 0 || vb == 0) ? 0u : 1u);
          EXPECT_TRUE(satisfied(cs));
          if (!r.is_constant() && cs.num_constraints() > before) {
            // Flipping the result variable must break the circuit.
            auto r1cs = prooflab::r1cs::compile(cs);
            auto w = cs.witness();
            Fr& v = w.aux[r.variable().index];
            v = v.is_zero() ? Fr::one() : Fr::zero();
            EXPECT_TRUE(prooflab::r1cs::first_unsatisfied(r1cs, w).has_value());
          }
        }
}

TEST(Boolean, XorOverAllViews) {
  check_binary(
      "xor",
      [](ConstraintSystem& cs, const Boolean& x, const Boolean& y) {
        return bit_xor(cs, x, y, "xor");
      },
      [](bool a, bool b) { return a != b; });
}

TEST(Boolean, AndOverAllViews) {
  check_binary(
      "and",
      [](ConstraintSystem& cs, const Boolean& x, const Boolean& y) {
        return bit_and(cs, x, y, "and");
      },
      [](bool a, bool b) { return a && b; });
}

TEST(Boolean, NotIsFree) {
  ConstraintSystem cs(Mode::kBoth);
  const Boolean b = Boolean::alloc(cs, true);
  const Boolean n = bit_not(b);
  EXPECT_FALSE(n.value());
  EXPECT_EQ(n.kind(), Boolean::Kind::kNot);
  EXPECT_EQ((!n).kind(), Boolean::Kind::kIs);
  EXPECT_EQ(cs.num_constraints(), 1u);
  EXPECT_TRUE(bit_not(Boolean::constant(false)).value());
}

template <class Op, class Expected>
void check_ternary(const char* name, Op op, Expected expected, unsigned general_cost) {
  for (int va = 0; va < kViews; ++va)
    for (int vb = 0; vb < kViews; ++vb)
      for (int vc = 0; vc < kViews; ++vc)
        for (int bits = 0; bits < 8; ++bits) {
          const bool a = bits & 1, b = bits & 2, c = bits & 4;
          SCOPED_TRACE(std::string(name) + " " + view_name(va) + "(" + std::to_string(a) + "), " +
                       view_name(vb) + "(" + std::to_string(b) + "), " + view_name(vc) + "(" +
                       std::to_string(c) + ")");
          ConstraintSystem cs(Mode::kBoth);
          const Boolean x = make(cs, va, a), y = make(cs, vb, b), z = make(cs, vc, c);
          const std::size_t before = cs.num_constraints();
          const Boolean r = op(cs, x, y, z);
          EXPECT_EQ(r.value(), expected(a, b, c));
          const std::size_t cost = cs.num_constraints() - before;
          if (va != 0 && vb != 0 && vc != 0)
            EXPECT_EQ(cost, general_cost);
          else
            EXPECT_LE(cost, 1u);
          EXPECT_TRUE(satisfied(cs));
        }
}

TEST(Boolean, Sha256ChOverAllViews) {
  check_ternary(
      "ch",
      [](ConstraintSystem& cs, const Boolean& a, const Boolean& b, const Boolean& c) {
        return sha256_ch(cs, a, b, c, "ch");
      },
      [](bool a, bool b, bool c) { return (a && b) != (!a && c); }, 1);
}

TEST(Boolean, Sha256MajOverAllViews) {
  check_ternary(
      "maj",
      [](ConstraintSystem& cs, const Boolean& a, const Boolean& b, const Boolean& c) {
        return sha256_maj(cs, a, b, c, "maj");
      },
      [](bool a, bool b, bool c) { return (a && b) != (a && c) != (b && c); }, 2);
}

TEST(Boolean, EnforceEqual) {
  for (int va = 0; va < kViews; ++va)
    for (int vb = 1; vb < kViews; ++vb)
      for (int a = 0; a < 2; ++a)
        for (int b = 0; b < 2; ++b) {
          ConstraintSystem cs(Mode::kBoth);
          enforce_equal(cs, make(cs, va, a), make(cs, vb, b), "equal");
          EXPECT_EQ(satisfied(cs), a == b)
              << view_name(va) << " " << view_name(vb) << " " << a << b;
        }
}

TEST(UInt32, OperationsMatchPlainCpp) {
  auto rng = pt::test_rng();
  SCOPED_TRACE(pt::seed_note());
  const auto rotr = [](std::uint32_t x, unsigned n) {
    return n == 0 ? x : (x >> n) | (x << (32 - n));
  };
  for (int iter = 0; iter < pt::iterations(100, 10); ++iter) {
    ConstraintSystem cs(Mode::kBoth);
    const std::uint32_t a = static_cast<std::uint32_t>(rng()),
                        b = static_cast<std::uint32_t>(rng()),
                        c = static_cast<std::uint32_t>(rng());
    // Each operand allocated or constant at random: the folding paths are covered too.
    const auto word = [&](std::uint32_t v) {
      return rng() % 3 == 0 ? UInt32::constant(v) : UInt32::alloc(cs, v);
    };
    const UInt32 wa = word(a), wb = word(b), wc = word(c);
    const unsigned n = static_cast<unsigned>(rng() % 32);
    EXPECT_EQ(wa.rotr(n).value(), rotr(a, n));
    EXPECT_EQ(wa.shr(n).value(), a >> n);
    const UInt32 x = wa.xor_with(cs, wb, "xor");
    const UInt32 ch = UInt32::sha256_ch(cs, wa, wb, wc, "ch");
    const UInt32 maj = UInt32::sha256_maj(cs, wa, wb, wc, "maj");
    EXPECT_EQ(x.value(), a ^ b);
    EXPECT_EQ(ch.value(), (a & b) ^ (~a & c));
    EXPECT_EQ(maj.value(), (a & b) ^ (a & c) ^ (b & c));
    const UInt32 rot = wa.rotr(n).xor_with(cs, wb.shr(n), "rot");
    EXPECT_EQ(rot.value(), rotr(a, n) ^ (b >> n));

    const std::size_t count = 2 + rng() % 9;
    std::vector<UInt32> ops;
    std::uint32_t sum = 0;
    for (std::size_t i = 0; i < count; ++i) {
      const auto v = static_cast<std::uint32_t>(rng());
      ops.push_back(word(v));
      sum += v;
    }
    UInt32 added;
    {
      MultiEq eq(cs);
      added = UInt32::addmany(eq, ops, "add");
    }
    EXPECT_EQ(added.value(), sum);
    // The bits agree with the value, whatever their views.
    for (const UInt32* w : std::initializer_list<const UInt32*>{&x, &ch, &maj, &rot, &added})
      for (unsigned i = 0; i < 32; ++i)
        ASSERT_EQ(w->bits_le()[i].value(), ((w->value() >> i) & 1) != 0);
    ASSERT_TRUE(satisfied(cs));
  }
}

TEST(UInt32, BigEndianBitsRoundTrip) {
  std::array<Boolean, 32> be;
  for (unsigned i = 0; i < 32; ++i) be[i] = Boolean::constant((0x80000001u >> (31 - i)) & 1);
  const UInt32 w = UInt32::from_bits_be(be);
  EXPECT_EQ(w.value(), 0x80000001u);
  EXPECT_TRUE(w.bits_be()[0].value());
  EXPECT_TRUE(w.bits_le()[0].value());
  EXPECT_FALSE(w.bits_le()[1].value());
}

TEST(UInt32, AddmanyCostsItsResultBitsPlusASharedEquality) {
  ConstraintSystem cs(Mode::kBoth);
  const UInt32 a = UInt32::alloc(cs, 0xffffffffu), b = UInt32::alloc(cs, 0xfffffffeu);
  const UInt32 c = UInt32::alloc(cs, 7), d = UInt32::alloc(cs, 1u << 31);
  const std::size_t before = cs.num_constraints();
  {
    MultiEq eq(cs);
    const UInt32 ops4[4] = {a, b, c, d};
    UInt32::addmany(eq, ops4, "four");  // 4·(2^32-1) needs 34 bits
    EXPECT_EQ(cs.num_constraints() - before, 34u);
    const UInt32 ops2[2] = {a, b};
    UInt32::addmany(eq, ops2, "two");  // 33 bits; 34 + 33 < 254: still one pending equality
    EXPECT_EQ(cs.num_constraints() - before, 67u);
  }
  EXPECT_EQ(cs.num_constraints() - before, 68u);  // the flush
  EXPECT_TRUE(satisfied(cs));

  ConstraintSystem constants(Mode::kBoth);
  MultiEq eq(constants);
  const UInt32 k[3] = {UInt32::constant(1), UInt32::constant(2), UInt32::constant(0xffffffffu)};
  const UInt32 r = UInt32::addmany(eq, k, "constants");
  EXPECT_EQ(r.value(), 2u);
  EXPECT_TRUE(r.is_constant());
  EXPECT_EQ(constants.num_constraints(), 0u);
}

TEST(UInt32, CorruptedAdditionIsCaughtByTheMultiEqConstraint) {
  ConstraintSystem cs(Mode::kBoth);
  const UInt32 a = UInt32::alloc(cs, 5), b = UInt32::alloc(cs, 9);
  UInt32 sum;
  {
    MultiEq eq(cs);
    const UInt32 ops[2] = {a, b};
    sum = UInt32::addmany(eq, ops, "add");
  }
  auto r1cs = prooflab::r1cs::compile(cs);
  auto w = cs.witness();
  ASSERT_FALSE(prooflab::r1cs::first_unsatisfied(r1cs, w).has_value());
  w.aux[sum.bits_le()[1].variable().index] = Fr::zero();  // the bits now say 12, not 14
  const auto bad = prooflab::r1cs::first_unsatisfied(r1cs, w);
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->annotation, "multieq 0");
}

TEST(Multipack, PacksBitsIntoInputsAndNums) {
  auto rng = pt::test_rng();
  ConstraintSystem cs(Mode::kBoth);
  std::vector<Boolean> bits;
  for (int i = 0; i < 300; ++i) bits.push_back(Boolean::alloc(cs, rng() & 1));
  const auto inputs = pack_into_inputs(cs, bits, "pack");
  ASSERT_EQ(inputs.size(), 2u);  // 254 + 46
  const Num n = pack_bits(cs, std::span<const Boolean>(bits).first(64), "num");
  std::uint64_t low = 0;
  for (int i = 0; i < 64; ++i) low |= std::uint64_t{bits[i].value()} << i;
  EXPECT_EQ(n.value(), Fr::from_u64(low));
  EXPECT_EQ(cs.witness().input[1], pack_value(std::span<const Boolean>(bits).first(254)));
  EXPECT_TRUE(satisfied(cs));
  const auto again = alloc_bits_le(cs, Fr::from_u64(0b1011), 4, "bit");
  EXPECT_TRUE(again[0].value() && again[1].value() && !again[2].value() && again[3].value());
}

}  // namespace
