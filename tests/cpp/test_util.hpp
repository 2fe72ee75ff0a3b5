// Helpers shared by the arithmetic-core test suites: seeded random streams that print how to
// reproduce them, iteration counts scaled down for slow (Debug / sanitizer) builds, hex
// printing of field elements and points for failure messages, and the reader of the
// known-answer files under tests/data.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/curve/affine.hpp"
#include "core/curve/jacobian.hpp"
#include "core/curve/xyzz.hpp"
#include "core/field/bigint.hpp"
#include "core/field/fp12.hpp"
#include "core/field/mont.hpp"

// Debug builds and sanitizer builds run the arithmetic 10-30x slower; the randomised suites
// run a tenth of their cases there (RelWithDebInfo + ASan still defines NDEBUG, hence the
// explicit sanitizer checks).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define PROOFLAB_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define PROOFLAB_TEST_SANITIZED 1
#endif
#endif

namespace prooflab::test {

#if !defined(NDEBUG) || defined(PROOFLAB_TEST_SANITIZED)
inline constexpr bool kSlowBuild = true;
#else
inline constexpr bool kSlowBuild = false;
#endif

// The number of randomised cases: `release` in an optimised build, a tenth of it (at least
// `minimum`) in a Debug or sanitizer build.
constexpr int iterations(int release, int minimum = 1) {
  if (!kSlowBuild) return release;
  return release / 10 > minimum ? release / 10 : minimum;
}

// ---- seeds ----

inline constexpr std::uint64_t kDefaultSeed = 0x9f1d3a7c0ffee381ULL;

// The run's base seed: PROOFLAB_TEST_SEED (decimal or 0x-hex) when set, else kDefaultSeed.
inline std::uint64_t base_seed() {
  static const std::uint64_t seed = [] {
    const char* env = std::getenv("PROOFLAB_TEST_SEED");
    if (env == nullptr || *env == '\0') return kDefaultSeed;
    char* end = nullptr;
    const unsigned long long v = std::strtoull(env, &end, 0);
    if (end == env || *end != '\0')
      throw std::invalid_argument(std::string("PROOFLAB_TEST_SEED=") + env +
                                  " is not an unsigned integer (decimal or 0x-hex)");
    return static_cast<std::uint64_t>(v);
  }();
  return seed;
}

inline std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const unsigned char c : s) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}

inline std::string current_test_name() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  if (info == nullptr) return "<no test>";
  return std::string(info->test_suite_name()) + "." + info->name();
}

// The random stream of the running test: the base seed mixed with the test's full name, so
// every test draws its own stream (and a filtered run reproduces the same values) while one
// seed reproduces the whole run. Prints the seed and records it in the XML/JSON report.
inline std::mt19937_64 test_rng() {
  const std::string name = current_test_name();
  const std::uint64_t seed = base_seed();
  std::cout << "[   SEED   ] " << name << ": PROOFLAB_TEST_SEED=0x" << std::hex << seed << std::dec
            << (std::getenv("PROOFLAB_TEST_SEED") ? " (from the environment)" : "") << "\n";
  ::testing::Test::RecordProperty("seed", std::to_string(seed));
  return std::mt19937_64(seed ^ fnv1a(name));
}

// What SCOPED_TRACE should say in every randomised test.
inline std::string seed_note() {
  std::ostringstream os;
  os << "reproduce with PROOFLAB_TEST_SEED=0x" << std::hex << base_seed()
     << " --gtest_filter=" << current_test_name();
  return os.str();
}

// ---- hex ----

// Big-endian, zero-padded to the full width.
template <std::size_t N>
std::string hex(const field::BigInt<N>& a) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  s.reserve(16 * N);
  for (std::size_t i = N; i-- > 0;)
    for (int shift = 60; shift >= 0; shift -= 4) s.push_back(kDigits[(a[i] >> shift) & 0xf]);
  return s;
}

template <class P>
std::string hex(const field::MontField<P>& a) {
  return "0x" + hex(a.to_canonical());
}
inline std::string hex(const field::Fp2& a) { return "(" + hex(a.c0) + " + " + hex(a.c1) + "·u)"; }
inline std::string hex(const field::Fp6& a) {
  return "[" + hex(a.c0) + ", " + hex(a.c1) + ", " + hex(a.c2) + "]";
}
inline std::string hex(const field::Fp12& a) { return "{" + hex(a.c0) + ", " + hex(a.c1) + "}"; }

inline std::string hex_bytes(const std::uint8_t* data, std::size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  for (std::size_t i = 0; i < n; ++i) {
    s.push_back(kDigits[data[i] >> 4]);
    s.push_back(kDigits[data[i] & 0xf]);
  }
  return s;
}

// Big-endian bytes of a hex string (no 0x), left-padded with zeros to `n` bytes.
inline std::vector<std::uint8_t> bytes_from_hex(std::string hexstr, std::size_t n) {
  if (hexstr.rfind("0x", 0) == 0) hexstr.erase(0, 2);
  if (hexstr.size() > 2 * n) throw std::invalid_argument("bytes_from_hex: too long: " + hexstr);
  hexstr.insert(0, 2 * n - hexstr.size(), '0');
  std::vector<std::uint8_t> out(n);
  for (std::size_t i = 0; i < n; ++i)
    out[i] = static_cast<std::uint8_t>(std::stoul(hexstr.substr(2 * i, 2), nullptr, 16));
  return out;
}

// Random limbs below `bound` (rejection sampling on bound's bit length). A quarter of the
// draws are "structured": each limb 0, all ones or random, to reach the carry and borrow
// chains that uniform values almost never exercise.
template <std::size_t N, class Rng>
field::BigInt<N> random_below(Rng& rng, const field::BigInt<N>& bound) {
  const std::size_t bits = field::bigint_num_bits(bound);
  const bool structured = (rng() & 3) == 0;
  for (;;) {
    field::BigInt<N> v{};
    for (auto& limb : v) {
      if (!structured) {
        limb = rng();
      } else {
        switch (rng() % 3) {
          case 0:
            limb = 0;
            break;
          case 1:
            limb = ~std::uint64_t{0};
            break;
          default:
            limb = rng();
        }
      }
    }
    for (std::size_t i = 0; i < N; ++i) {
      if (64 * i >= bits)
        v[i] = 0;
      else if (64 * (i + 1) > bits)
        v[i] &= (std::uint64_t{1} << (bits - 64 * i)) - 1;
    }
    if (field::bigint_compare(v, bound) < 0) return v;
  }
}

// ---- known-answer files ----

inline std::string test_data_path(const std::string& name) {
  return std::string(PROOFLAB_TEST_DATA_DIR) + "/" + name;
}

// The non-empty, non-comment lines of a tests/data file, split on whitespace; a failed
// assertion (and an empty result) when the file cannot be read.
inline std::vector<std::vector<std::string>> read_data_file(const std::string& name) {
  std::vector<std::vector<std::string>> rows;
  const std::string path = test_data_path(name);
  std::ifstream in(path);
  if (!in) {
    ADD_FAILURE() << "cannot open the known-answer file " << path
                  << " (PROOFLAB_TEST_DATA_DIR=" << PROOFLAB_TEST_DATA_DIR << ")";
    return rows;
  }
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    std::vector<std::string> fields;
    for (std::string f; ls >> f;) fields.push_back(f);
    if (!fields.empty()) rows.push_back(std::move(fields));
  }
  return rows;
}

// k·G known answers from tests/data/curve_vectors.txt (see gen_curve_vectors.py there).
struct CurveVector {
  std::string k;                    // hex scalar
  std::vector<std::string> coords;  // G1: x, y; G2: x.c0, x.c1, y.c0, y.c1
};
inline std::vector<CurveVector> curve_vectors(const std::string& group) {
  std::vector<CurveVector> out;
  for (auto& row : read_data_file("curve_vectors.txt")) {
    if (row[0] != group) continue;
    out.push_back({row[1], std::vector<std::string>(row.begin() + 2, row.end())});
  }
  return out;
}

}  // namespace prooflab::test

// GoogleTest finds these by argument-dependent lookup, so EXPECT_EQ on field elements and
// points prints canonical hex instead of raw Montgomery bytes.
namespace prooflab::field {
template <class P>
void PrintTo(const MontField<P>& a, std::ostream* os) {
  *os << test::hex(a);
}
inline void PrintTo(const Fp2& a, std::ostream* os) { *os << test::hex(a); }
inline void PrintTo(const Fp6& a, std::ostream* os) { *os << test::hex(a); }
inline void PrintTo(const Fp12& a, std::ostream* os) { *os << test::hex(a); }
}  // namespace prooflab::field

namespace prooflab::curve {
template <class C>
void PrintTo(const Affine<C>& p, std::ostream* os) {
  if (p.is_infinity())
    *os << "O (affine)";
  else
    *os << "(x=" << test::hex(p.x) << ", y=" << test::hex(p.y) << ")";
}
template <class C>
void PrintTo(const Jacobian<C>& p, std::ostream* os) {
  if (p.is_infinity())
    *os << "O (jacobian)";
  else {
    *os << "jacobian ";
    PrintTo(p.to_affine(), os);
  }
}
template <class C>
void PrintTo(const Xyzz<C>& p, std::ostream* os) {
  if (p.is_infinity())
    *os << "O (xyzz)";
  else {
    *os << "xyzz ";
    PrintTo(p.to_affine(), os);
  }
}
}  // namespace prooflab::curve
