// The SHA-256 compression gadget against a reference compression written here from FIPS
// 180-4 (independent of core/circuits/sha256_native): the "abc" vector, random blocks with a
// constant and with an allocated IV, chained blocks, reduced rounds, and the constraint
// count of one block (bellman's 25,840 + 512).
#include <gtest/gtest.h>

#include "test_util.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include <array>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "core/circuits/sha256.hpp"
#include "core/circuits/sha256_native.hpp"
#include "core/r1cs/r1cs.hpp"
#include "core/r1cs/satisfiability.hpp"

namespace {

namespace pt = prooflab::test;

using namespace prooflab::circuits;
using prooflab::r1cs::ConstraintSystem;
using prooflab::r1cs::Mode;

// ---- reference: FIPS 180-4 §4.1.2, §4.2.2, §5.3.3, §6.2.2 ----
namespace ref {
constexpr std::uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};
constexpr std::array<std::uint32_t, 8> H0 = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                             0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
std::uint32_t rotr(std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }
std::uint32_t Ch(std::uint32_t x, std::uint32_t y, std::uint32_t z) { return (x & y) ^ (~x & z); }
std::uint32_t Maj(std::uint32_t x, std::uint32_t y, std::uint32_t z) {
  return (x & y) ^ (x & z) ^ (y & z);
}
std::uint32_t Sigma0(std::uint32_t x) { return rotr(x, 2) ^ rotr(x, 13) ^ rotr(x, 22); }
std::uint32_t Sigma1(std::uint32_t x) { return rotr(x, 6) ^ rotr(x, 11) ^ rotr(x, 25); }
std::uint32_t sigma0(std::uint32_t x) { return rotr(x, 7) ^ rotr(x, 18) ^ (x >> 3); }
std::uint32_t sigma1(std::uint32_t x) { return rotr(x, 17) ^ rotr(x, 19) ^ (x >> 10); }

std::array<std::uint32_t, 8> compress(std::array<std::uint32_t, 8> H, const std::uint32_t M[16],
                                      int rounds = 64) {
  std::uint32_t W[64];
  for (int t = 0; t < 64; ++t)
    W[t] = t < 16 ? M[t] : sigma1(W[t - 2]) + W[t - 7] + sigma0(W[t - 15]) + W[t - 16];
  std::uint32_t a = H[0], b = H[1], c = H[2], d = H[3], e = H[4], f = H[5], g = H[6], h = H[7];
  for (int t = 0; t < rounds; ++t) {
    const std::uint32_t T1 = h + Sigma1(e) + Ch(e, f, g) + K[t] + W[t];
    const std::uint32_t T2 = Sigma0(a) + Maj(a, b, c);
    h = g;
    g = f;
    f = e;
    e = d + T1;
    d = c;
    c = b;
    b = a;
    a = T1 + T2;
  }
  const std::uint32_t v[8] = {a, b, c, d, e, f, g, h};
  for (int i = 0; i < 8; ++i) H[i] += v[i];
  return H;
}
}  // namespace ref

// The gadget's input bits for 16 message words (allocated, or constants).
std::array<Boolean, 512> block_bits(ConstraintSystem& cs, const std::uint32_t M[16],
                                    bool allocate) {
  std::array<Boolean, 512> bits;
  for (int i = 0; i < 512; ++i) {
    const bool v = (M[i / 32] >> (31 - i % 32)) & 1;
    bits[i] = allocate ? Boolean::alloc(cs, v, "input bit") : Boolean::constant(v);
  }
  return bits;
}

std::array<std::uint32_t, 8> values(const std::array<UInt32, 8>& s) {
  std::array<std::uint32_t, 8> out;
  for (int i = 0; i < 8; ++i) out[i] = s[i].value();
  return out;
}

void expect_satisfied(const ConstraintSystem& cs) {
  const auto bad = prooflab::r1cs::first_unsatisfied(prooflab::r1cs::compile(cs), cs.witness());
  EXPECT_FALSE(bad.has_value()) << bad->message();
}

TEST(Sha256Gadget, AbcKnownAnswer) {
  // "abc" padded: 0x61626380, zeros, length 24 in the last word.
  std::uint32_t M[16] = {0x61626380};
  M[15] = 24;
  const std::array<std::uint32_t, 8> expected = {0xba7816bf, 0x8f01cfea, 0x414140de, 0x5dae2223,
                                                 0xb00361a3, 0x96177a9c, 0xb410ff61, 0xf20015ad};
  ASSERT_EQ(ref::compress(ref::H0, M), expected) << "the reference itself";
  ConstraintSystem cs(Mode::kBoth);
  const auto bits = block_bits(cs, M, true);
  const auto out = sha256_compression(cs, bits, sha256_iv());
  EXPECT_EQ(values(out), expected);
  // The bits carry the digest too, big-endian.
  const auto digest_bits = sha256_state_bits_be(out);
  for (int i = 0; i < 256; ++i)
    ASSERT_EQ(digest_bits[i].value(), ((expected[i / 32] >> (31 - i % 32)) & 1) != 0)
        << "bit " << i;
  expect_satisfied(cs);
  // And the library's native SHA-256 (used for the Poseidon constants) agrees on "abc".
  const std::uint8_t abc[3] = {'a', 'b', 'c'};
  const auto d = sha256(abc);
  std::string hex;
  for (const std::uint8_t byte : d) {
    char two[3];
    std::snprintf(two, sizeof two, "%02x", byte);
    hex += two;
  }
  EXPECT_EQ(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256Gadget, OneBlockCosts25840PlusInputBooleanity) {
  auto rng = pt::test_rng();
  std::uint32_t M[16];
  for (auto& m : M) m = static_cast<std::uint32_t>(rng());
  ConstraintSystem cs(Mode::kWitness);
  const auto bits = block_bits(cs, M, true);
  ASSERT_EQ(cs.num_constraints(), 512u);
  sha256_compression(cs, bits, sha256_iv());
  const std::size_t count = cs.num_constraints() - 512;
  std::printf(
      "[  COUNT   ] SHA-256 compression, constant IV: %zu constraints (+512 input "
      "booleanity), %zu aux\n",
      count, cs.num_aux() - 512);
  EXPECT_EQ(count, 25840u);  // bellman's gadget test, REFERENCE.md
}

TEST(Sha256Gadget, RandomBlocksMatchTheReference) {
  auto rng = pt::test_rng();
  SCOPED_TRACE(pt::seed_note());
  for (int iter = 0; iter < pt::iterations(4, 1); ++iter) {
    std::uint32_t M[16];
    for (auto& m : M) m = static_cast<std::uint32_t>(rng());
    std::array<std::uint32_t, 8> H;
    for (auto& h : H) h = static_cast<std::uint32_t>(rng());
    ConstraintSystem cs(Mode::kBoth);
    const auto bits = block_bits(cs, M, true);
    // A variable IV (the chained case) and a constant one.
    std::array<UInt32, 8> state;
    for (int i = 0; i < 8; ++i) state[i] = UInt32::alloc(cs, H[i]);
    const std::size_t before = cs.num_constraints();
    const auto out = sha256_compression(cs, bits, state);
    if (iter == 0)
      std::printf("[  COUNT   ] SHA-256 compression, allocated IV: %zu constraints\n",
                  cs.num_constraints() - before);
    EXPECT_EQ(values(out), ref::compress(H, M));
    EXPECT_EQ(values(sha256_compression(cs, bits, sha256_iv())), ref::compress(ref::H0, M));
    expect_satisfied(cs);
  }
}

TEST(Sha256Gadget, ChainedBlocksMatchTheLibraryDigestOfATwoBlockMessage) {
  // 64 bytes of message: two compressions (the second is all padding, constant bits).
  std::array<std::uint8_t, 64> message;
  for (int i = 0; i < 64; ++i) message[i] = static_cast<std::uint8_t>(i * 7 + 1);
  std::uint32_t M0[16], M1[16] = {0x80000000u};
  M1[15] = 512;
  for (int i = 0; i < 16; ++i)
    M0[i] = (std::uint32_t{message[4 * i]} << 24) | (std::uint32_t{message[4 * i + 1]} << 16) |
            (std::uint32_t{message[4 * i + 2]} << 8) | message[4 * i + 3];
  ConstraintSystem cs(Mode::kBoth);
  const auto first = sha256_compression(cs, block_bits(cs, M0, true), sha256_iv());
  const auto second = sha256_compression(cs, block_bits(cs, M1, false), first);
  const auto digest = sha256(message);
  const auto out = values(second);
  for (int i = 0; i < 32; ++i)
    EXPECT_EQ(static_cast<std::uint8_t>(out[i / 4] >> (24 - 8 * (i % 4))), digest[i])
        << "byte " << i;
  EXPECT_EQ(values(second), ref::compress(ref::compress(ref::H0, M0), M1));
  expect_satisfied(cs);
}

TEST(Sha256Gadget, ReducedRoundsMatchTheReducedReference) {
  auto rng = pt::test_rng();
  std::uint32_t M[16];
  for (auto& m : M) m = static_cast<std::uint32_t>(rng());
  std::size_t previous = 0;
  for (const int rounds : {1, 5, 16, 17, 40}) {
    SCOPED_TRACE("rounds " + std::to_string(rounds));
    ConstraintSystem cs(Mode::kBoth);
    const auto out = sha256_compression(cs, block_bits(cs, M, true), sha256_iv(), rounds);
    EXPECT_EQ(values(out), ref::compress(ref::H0, M, rounds));
    EXPECT_GT(cs.num_constraints(), previous);
    previous = cs.num_constraints();
    expect_satisfied(cs);
  }
}

TEST(Sha256Gadget, AConstantBlockCostsNothing) {
  std::uint32_t M[16] = {0x80000000u};
  ConstraintSystem cs(Mode::kBoth);
  const auto out = sha256_compression(cs, block_bits(cs, M, false), sha256_iv());
  EXPECT_EQ(cs.num_constraints(), 0u);
  EXPECT_EQ(values(out)[0], 0xe3b0c442u);  // SHA-256("")
}

TEST(Sha256Gadget, ACorruptedRoundIsNamed) {
  std::uint32_t M[16] = {1, 2, 3};
  ConstraintSystem cs(Mode::kBoth);
  const auto bits = block_bits(cs, M, true);
  sha256_compression(cs, bits, sha256_iv());
  const auto r1cs = prooflab::r1cs::compile(cs);
  auto w = cs.witness();
  // Find a maj constraint of round 12 and flip the bit it allocates (its C row's aux).
  std::size_t row = 0;
  while (row < r1cs.num_constraints && r1cs.annotations.describe(row) != "sha256/round 12/maj")
    ++row;
  ASSERT_LT(row, r1cs.num_constraints);
  const auto& c = r1cs.c;
  const std::uint32_t col = c.cols[c.row_ptr[row + 1] - 1];  // the highest column: the new bit
  auto& v = w.aux[col - r1cs.num_inputs];
  v = v.is_zero() ? prooflab::field::Fr::one() : prooflab::field::Fr::zero();
  const auto bad = prooflab::r1cs::first_unsatisfied(r1cs, w);
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->annotation, "sha256/round 12/maj");
  EXPECT_NE(bad->message().find("sha256/round 12/maj"), std::string::npos);
}

}  // namespace
