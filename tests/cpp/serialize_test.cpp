// Zcash-format point encoding of G1 and G2: round trips, known answers (the generators and
// the oracle's k·G vectors), and a corpus of invalid encodings, each of which must be rejected
// with the right DecodeErrorKind and a message naming the group, the form and the failure.
#include <gtest/gtest.h>

#include <array>
#include <optional>
#include <string>
#include <typeinfo>
#include <vector>

#include "core/curve/serialize.hpp"
#include "tests/cpp/test_util.hpp"

namespace {

using prooflab::field::BigInt;
using prooflab::field::Fp;
using prooflab::field::Fp2;
using prooflab::field::FpParams;
using prooflab::field::Fr;
using namespace prooflab::curve;
namespace pt = prooflab::test;

constexpr std::uint8_t kCompressed = 0x80, kInfinity = 0x40, kSign = 0x20;

using Bytes = std::vector<std::uint8_t>;

std::string hex(const Bytes& b) { return pt::hex_bytes(b.data(), b.size()); }

// Big-endian bytes of one Fp (48).
Bytes fp_bytes(const Fp& v) {
  Bytes out(48);
  v.to_bytes_be(std::span<std::uint8_t, 48>(out.data(), 48));
  return out;
}
Bytes concat(std::initializer_list<Bytes> parts) {
  Bytes out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}
// The modulus p as 48 big-endian bytes.
Bytes p_bytes() { return pt::bytes_from_hex(pt::hex(FpParams::kModulus), 48); }
// v + p as 48 bytes (fits: both are below 2^381): the non-canonical alias of v.
Bytes plus_p_bytes(const Fp& v) {
  BigInt<6> sum = v.to_canonical();
  prooflab::field::bigint_add(sum, FpParams::kModulus);
  return pt::bytes_from_hex(pt::hex(sum), 48);
}
// The Zcash sign of a canonical integer given in hex: greater than (p-1)/2.
bool hex_is_largest(const std::string& h) {
  return prooflab::field::bigint_compare(prooflab::field::bigint_from_hex<6>(h), Fp::kHalfOrder) >
         0;
}

struct G1Ser {
  using Field = Fp;
  using AffinePoint = G1Affine;
  using Jac = G1Jacobian;
  static constexpr std::size_t kC = kG1CompressedBytes, kU = kG1UncompressedBytes;
  static constexpr const char* kName = "G1";
  static constexpr const char* kVectorTag = "g1";
  static AffinePoint generator() { return g1_generator(); }
  static Field b() { return Fp::from_u64(4); }
  static std::optional<Field> sqrt(const Field& a) { return prooflab::field::sqrt(a); }
  static Field small(std::uint64_t k) { return Fp::from_u64(k); }
  static Bytes field_bytes(const Field& v) { return fp_bytes(v); }
  static AffinePoint from_hex(const std::vector<std::string>& c) {
    return {Fp::from_hex(c.at(0)), Fp::from_hex(c.at(1))};
  }
  // Expected encodings of an oracle vector built from its hex alone.
  static Bytes x_hex_bytes(const std::vector<std::string>& c) {
    return pt::bytes_from_hex(c[0], 48);
  }
  static Bytes y_hex_bytes(const std::vector<std::string>& c) {
    return pt::bytes_from_hex(c[1], 48);
  }
  static bool y_hex_largest(const std::vector<std::string>& c) { return hex_is_largest(c[1]); }

  static Bytes compress(const AffinePoint& p) {
    Bytes out(kC);
    g1_to_compressed(p, std::span<std::uint8_t, kC>(out.data(), kC));
    return out;
  }
  static Bytes uncompress(const AffinePoint& p) {
    Bytes out(kU);
    g1_to_uncompressed(p, std::span<std::uint8_t, kU>(out.data(), kU));
    return out;
  }
  static AffinePoint decode_compressed(const Bytes& in, SubgroupCheck c = SubgroupCheck::kYes) {
    return g1_from_compressed(std::span<const std::uint8_t, kC>(in.data(), kC), c);
  }
  static AffinePoint decode_uncompressed(const Bytes& in, SubgroupCheck c = SubgroupCheck::kYes) {
    return g1_from_uncompressed(std::span<const std::uint8_t, kU>(in.data(), kU), c);
  }
};

struct G2Ser {
  using Field = Fp2;
  using AffinePoint = G2Affine;
  using Jac = G2Jacobian;
  static constexpr std::size_t kC = kG2CompressedBytes, kU = kG2UncompressedBytes;
  static constexpr const char* kName = "G2";
  static constexpr const char* kVectorTag = "g2";
  static AffinePoint generator() { return g2_generator(); }
  static Field b() { return {Fp::from_u64(4), Fp::from_u64(4)}; }
  static std::optional<Field> sqrt(const Field& a) { return prooflab::field::sqrt(a); }
  static Field small(std::uint64_t k) { return {Fp::from_u64(k), Fp::one()}; }
  // c1 before c0.
  static Bytes field_bytes(const Field& v) { return concat({fp_bytes(v.c1), fp_bytes(v.c0)}); }
  static AffinePoint from_hex(const std::vector<std::string>& c) {
    return {{Fp::from_hex(c.at(0)), Fp::from_hex(c.at(1))},
            {Fp::from_hex(c.at(2)), Fp::from_hex(c.at(3))}};
  }
  static Bytes x_hex_bytes(const std::vector<std::string>& c) {
    return concat({pt::bytes_from_hex(c[1], 48), pt::bytes_from_hex(c[0], 48)});
  }
  static Bytes y_hex_bytes(const std::vector<std::string>& c) {
    return concat({pt::bytes_from_hex(c[3], 48), pt::bytes_from_hex(c[2], 48)});
  }
  static bool y_hex_largest(const std::vector<std::string>& c) {
    const bool c1_zero = prooflab::field::bigint_is_zero(prooflab::field::bigint_from_hex<6>(c[3]));
    return c1_zero ? hex_is_largest(c[2]) : hex_is_largest(c[3]);
  }

  static Bytes compress(const AffinePoint& p) {
    Bytes out(kC);
    g2_to_compressed(p, std::span<std::uint8_t, kC>(out.data(), kC));
    return out;
  }
  static Bytes uncompress(const AffinePoint& p) {
    Bytes out(kU);
    g2_to_uncompressed(p, std::span<std::uint8_t, kU>(out.data(), kU));
    return out;
  }
  static AffinePoint decode_compressed(const Bytes& in, SubgroupCheck c = SubgroupCheck::kYes) {
    return g2_from_compressed(std::span<const std::uint8_t, kC>(in.data(), kC), c);
  }
  static AffinePoint decode_uncompressed(const Bytes& in, SubgroupCheck c = SubgroupCheck::kYes) {
    return g2_from_uncompressed(std::span<const std::uint8_t, kU>(in.data(), kU), c);
  }
};

template <class S>
class Serialize : public ::testing::Test {
 public:
  using AffinePoint = typename S::AffinePoint;
  using Jac = typename S::Jac;
  using Field = typename S::Field;

  void SetUp() override { rng_ = pt::test_rng(); }

  AffinePoint random_point() {
    return scalar_mul(Jac::from_affine(S::generator()), Fr::random(rng_)).to_affine();
  }

  // Decoding must throw DecodeError of `kind`, whose message names the group, the form and
  // the failure.
  static void expect_rejected(const std::string& label, const Bytes& in, bool compressed,
                              DecodeErrorKind kind, SubgroupCheck check = SubgroupCheck::kYes) {
    const std::string form = compressed ? "compressed" : "uncompressed";
    SCOPED_TRACE(std::string(S::kName) + " " + form + ": " + label + "\n  bytes " + hex(in));
    try {
      const AffinePoint p =
          compressed ? S::decode_compressed(in, check) : S::decode_uncompressed(in, check);
      ADD_FAILURE() << "accepted, decoded as " << ::testing::PrintToString(p)
                    << "; expected DecodeError(" << to_string(kind) << ")";
    } catch (const DecodeError& e) {
      const std::string what = e.what();
      EXPECT_EQ(e.kind(), kind) << "got " << to_string(e.kind()) << ": " << what;
      EXPECT_NE(what.find(std::string(S::kName) + " " + form), std::string::npos)
          << "message does not name the group and form: " << what;
      EXPECT_NE(what.find(to_string(kind)), std::string::npos)
          << "message does not name the failure: " << what;
    } catch (const std::exception& e) {
      ADD_FAILURE() << "threw a " << typeid(e).name() << " instead of DecodeError: " << e.what();
    }
  }

  // A point on the curve outside the subgroup (checked with r·P != O), found deterministically
  // from x = small(1), small(2), ...
  static AffinePoint point_outside_subgroup() {
    for (std::uint64_t k = 1;; ++k) {
      const Field x = S::small(k);
      const auto y = S::sqrt(x.square() * x + S::b());
      if (!y) continue;
      const AffinePoint p{x, *y};
      if (!is_torsion_free_by_order(Jac::from_affine(p))) return p;
    }
  }
  // An x for which x^3 + b has no square root.
  static Field x_not_on_curve() {
    for (std::uint64_t k = 1;; ++k) {
      const Field x = S::small(k);
      if (!S::sqrt(x.square() * x + S::b())) return x;
    }
  }

  std::mt19937_64 rng_;
};

struct SerNames {
  template <class T>
  static std::string GetName(int) {
    return std::is_same_v<T, G1Ser> ? "G1" : "G2";
  }
};
using SerTypes = ::testing::Types<G1Ser, G2Ser>;
TYPED_TEST_SUITE(Serialize, SerTypes, SerNames);

TYPED_TEST(Serialize, RoundTrips) {
  using S = TypeParam;
  using AffinePoint = typename TestFixture::AffinePoint;
  SCOPED_TRACE(pt::seed_note());
  std::vector<AffinePoint> points = {S::generator(), -S::generator()};
  for (int i = 0; i < pt::iterations(30, 4); ++i) points.push_back(this->random_point());
  int signs = 0;
  for (const auto& p : points) {
    SCOPED_TRACE(::testing::PrintToString(p));
    const Bytes c = S::compress(p), u = S::uncompress(p);
    EXPECT_EQ(c[0] & (kCompressed | kInfinity), kCompressed);
    EXPECT_EQ(u[0] & (kCompressed | kInfinity | kSign), 0);
    EXPECT_EQ(bool(c[0] & kSign), p.y.is_lexicographically_largest());
    signs += bool(c[0] & kSign);
    EXPECT_EQ(S::decode_compressed(c), p);
    EXPECT_EQ(S::decode_uncompressed(u), p);
    EXPECT_EQ(S::decode_compressed(c, SubgroupCheck::kNo), p);
    EXPECT_EQ(S::decode_uncompressed(u, SubgroupCheck::kNo), p);
    // The layout: compressed = flags | x, uncompressed = x || y (G2: c1 before c0).
    Bytes x = S::field_bytes(p.x);
    x[0] |= kCompressed | (p.y.is_lexicographically_largest() ? kSign : 0);
    EXPECT_EQ(hex(c), hex(x));
    EXPECT_EQ(hex(u), hex(concat({S::field_bytes(p.x), S::field_bytes(p.y)})));
    // -P differs only in the sign flag.
    Bytes neg = S::compress(-p);
    EXPECT_EQ(neg[0] ^ c[0], kSign);
    neg[0] = c[0];
    EXPECT_EQ(hex(neg), hex(c));
    // Flipping the sign flag decodes -P.
    Bytes flipped = c;
    flipped[0] ^= kSign;
    EXPECT_EQ(S::decode_compressed(flipped), -p);
  }
  EXPECT_GT(signs, 0);
  EXPECT_LT(signs, static_cast<int>(points.size()));

  // The point at infinity: exactly the flag byte followed by zeros.
  const AffinePoint o = AffinePoint::infinity();
  Bytes want_c(S::kC, 0), want_u(S::kU, 0);
  want_c[0] = kCompressed | kInfinity;
  want_u[0] = kInfinity;
  EXPECT_EQ(hex(S::compress(o)), hex(want_c));
  EXPECT_EQ(hex(S::uncompress(o)), hex(want_u));
  EXPECT_TRUE(S::decode_compressed(want_c).is_infinity());
  EXPECT_TRUE(S::decode_uncompressed(want_u).is_infinity());
  EXPECT_TRUE(S::decode_compressed(want_c, SubgroupCheck::kNo).is_infinity());
  EXPECT_TRUE(S::decode_uncompressed(want_u, SubgroupCheck::kNo).is_infinity());
}

// The oracle's k·G vectors, encoded from their hex coordinates alone.
TYPED_TEST(Serialize, OracleVectorsEncodeAsExpected) {
  using S = TypeParam;
  const auto vectors = pt::curve_vectors(S::kVectorTag);
  ASSERT_GE(vectors.size(), 9u);
  for (const auto& v : vectors) {
    SCOPED_TRACE("k = 0x" + v.k);
    const auto p = S::from_hex(v.coords);
    Bytes want_c = S::x_hex_bytes(v.coords);
    want_c[0] |= kCompressed | (S::y_hex_largest(v.coords) ? kSign : 0);
    const Bytes want_u = concat({S::x_hex_bytes(v.coords), S::y_hex_bytes(v.coords)});
    EXPECT_EQ(hex(S::compress(p)), hex(want_c));
    EXPECT_EQ(hex(S::uncompress(p)), hex(want_u));
    EXPECT_EQ(S::decode_compressed(want_c), p);
    EXPECT_EQ(S::decode_uncompressed(want_u), p);
  }
}

TEST(SerializeKnownAnswers, G1Generator) {
  const std::string x =
      "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb2"
      "2c6bb";
  const std::string y =
      "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c"
      "5e7e1";
  const Bytes c = G1Ser::compress(g1_generator());
  // x with the compression flag (0x17 | 0x80 = 0x97); y < (p-1)/2, so no sign flag.
  EXPECT_FALSE(hex_is_largest(y));
  EXPECT_EQ(hex(c), "97" + x.substr(2));
  EXPECT_EQ(hex(c).substr(0, 8), "97f1d3a7");
  EXPECT_EQ(hex(c).substr(hex(c).size() - 9), "adb22c6bb");
  EXPECT_EQ(hex(G1Ser::uncompress(g1_generator())), x + y);
  EXPECT_EQ(G1Ser::decode_compressed(c), g1_generator());
}

TEST(SerializeKnownAnswers, G2Generator) {
  const std::string x0 =
      "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c12"
      "1bdb8";
  const std::string x1 =
      "13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d0"
      "42b7e";
  const std::string y0 =
      "0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b"
      "82801";
  const std::string y1 =
      "0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05"
      "f79be";
  // c1 first; y.c1 != 0 decides the sign and is below (p-1)/2: flag byte 0x80 | 0x13 = 0x93.
  EXPECT_FALSE(hex_is_largest(y1));
  const std::string want_c = "93" + x1.substr(2) + x0;
  EXPECT_EQ(hex(G2Ser::compress(g2_generator())), want_c);
  EXPECT_EQ(hex(G2Ser::uncompress(g2_generator())), x1 + x0 + y1 + y0);
  EXPECT_EQ(G2Ser::decode_compressed(pt::bytes_from_hex(want_c, 96)), g2_generator());
}

// Every DecodeErrorKind has its own name.
TEST(SerializeErrors, KindNamesAreDistinct) {
  const std::vector<DecodeErrorKind> kinds = {
      DecodeErrorKind::kBadFlags, DecodeErrorKind::kBadInfinity, DecodeErrorKind::kNonCanonical,
      DecodeErrorKind::kNotOnCurve, DecodeErrorKind::kNotInSubgroup};
  for (std::size_t i = 0; i < kinds.size(); ++i)
    for (std::size_t j = i + 1; j < kinds.size(); ++j)
      EXPECT_STRNE(to_string(kinds[i]), to_string(kinds[j]));
}

TYPED_TEST(Serialize, BadFlagsAreRejected) {
  using S = TypeParam;
  const auto g = S::generator();
  Bytes c = S::compress(g);
  c[0] &= static_cast<std::uint8_t>(~kCompressed);
  this->expect_rejected("compression flag missing", c, true, DecodeErrorKind::kBadFlags);
  c[0] |= kSign;
  this->expect_rejected("compression flag missing, sign set", c, true, DecodeErrorKind::kBadFlags);

  Bytes u = S::uncompress(g);
  u[0] |= kCompressed;
  this->expect_rejected("compression flag on uncompressed", u, false, DecodeErrorKind::kBadFlags);
  u = S::uncompress(g);
  u[0] |= kSign;
  this->expect_rejected("sign flag on uncompressed", u, false, DecodeErrorKind::kBadFlags);
  // Also with kNo: flags are checked before anything else.
  this->expect_rejected("sign flag on uncompressed (kNo)", u, false, DecodeErrorKind::kBadFlags,
                        SubgroupCheck::kNo);
  // An uncompressed infinity presented to the compressed decoder and vice versa.
  Bytes inf_u(S::kC, 0);
  inf_u[0] = kInfinity;
  this->expect_rejected("infinity without compression flag", inf_u, true,
                        DecodeErrorKind::kBadFlags);
  Bytes inf_c(S::kU, 0);
  inf_c[0] = kCompressed | kInfinity;
  this->expect_rejected("compressed infinity given as uncompressed", inf_c, false,
                        DecodeErrorKind::kBadFlags);
}

TYPED_TEST(Serialize, BadInfinityEncodingsAreRejected) {
  using S = TypeParam;
  for (const bool compressed : {true, false}) {
    const std::size_t n = compressed ? S::kC : S::kU;
    const std::uint8_t flags = compressed ? (kCompressed | kInfinity) : kInfinity;
    Bytes b(n, 0);
    b[0] = flags;
    b[n - 1] = 1;
    this->expect_rejected("infinity with a non-zero last byte", b, compressed,
                          DecodeErrorKind::kBadInfinity);
    b.assign(n, 0);
    b[0] = flags | 0x01;
    this->expect_rejected("infinity with non-zero bits in the first byte", b, compressed,
                          DecodeErrorKind::kBadInfinity);
    b.assign(n, 0);
    b[0] = flags;
    b[n / 2] = 0x80;
    this->expect_rejected("infinity with a non-zero middle byte", b, compressed,
                          DecodeErrorKind::kBadInfinity);
    b.assign(n, 0);
    b[0] = flags | kSign;
    this->expect_rejected("infinity with the sign flag", b, compressed,
                          DecodeErrorKind::kBadInfinity);
    // The infinity flag on a real point's encoding.
    b = compressed ? S::compress(S::generator()) : S::uncompress(S::generator());
    b[0] |= kInfinity;
    b[0] &= static_cast<std::uint8_t>(~kSign);
    this->expect_rejected("infinity flag on the generator", b, compressed,
                          DecodeErrorKind::kBadInfinity);
  }
}

TYPED_TEST(Serialize, NonCanonicalCoordinatesAreRejected) {
  using S = TypeParam;
  const auto g = S::generator();
  const Bytes p = p_bytes();
  Bytes ones(48, 0xff);
  ones[0] = 0x1f;                           // 2^381 - 1 once the flag bits are cleared
  const std::size_t fp_count = S::kC / 48;  // Fp elements in x

  for (std::size_t which = 0; which < fp_count; ++which) {
    const std::string coord = fp_count == 1 ? "x" : (which == 0 ? "x.c1" : "x.c0");
    for (const auto& [name, bad] : {std::pair<std::string, Bytes>{"= p", p},
                                    std::pair<std::string, Bytes>{"= 2^381-1", ones}}) {
      for (const std::uint8_t sign : {std::uint8_t{0}, kSign}) {
        Bytes c = S::compress(g);
        std::copy(bad.begin(), bad.end(), c.begin() + 48 * which);
        c[0] = static_cast<std::uint8_t>((c[0] & 0x1f) | kCompressed | sign);
        this->expect_rejected(coord + " " + name, c, true, DecodeErrorKind::kNonCanonical);
      }
      Bytes u = S::uncompress(g);
      std::copy(bad.begin(), bad.end(), u.begin() + 48 * which);
      u[0] &= 0x1f;
      this->expect_rejected(coord + " " + name, u, false, DecodeErrorKind::kNonCanonical);
    }
  }
  // y >= p in the uncompressed form: y = p, y = 2^381 - 1 (with a 0 top byte: 0x1f ff..), and
  // the alias y + p of the generator's true y.
  const std::size_t y_offset = S::kU / 2;
  for (std::size_t which = 0; which < fp_count; ++which) {
    const std::string coord = fp_count == 1 ? "y" : (which == 0 ? "y.c1" : "y.c0");
    for (const auto& [name, bad] : {std::pair<std::string, Bytes>{"= p", p},
                                    std::pair<std::string, Bytes>{"= 2^381-1", ones}}) {
      Bytes u = S::uncompress(g);
      std::copy(bad.begin(), bad.end(), u.begin() + y_offset + 48 * which);
      this->expect_rejected(coord + " " + name, u, false, DecodeErrorKind::kNonCanonical);
    }
    Bytes u = S::uncompress(g);
    const Bytes y_bytes(u.begin() + y_offset + 48 * which, u.begin() + y_offset + 48 * (which + 1));
    std::array<std::uint8_t, 48> y_arr;
    std::copy(y_bytes.begin(), y_bytes.end(), y_arr.begin());
    const Fp y_fp = *Fp::from_bytes_be(y_arr);
    const Bytes alias = plus_p_bytes(y_fp);
    std::copy(alias.begin(), alias.end(), u.begin() + y_offset + 48 * which);
    this->expect_rejected(coord + " + p (alias of a valid y)", u, false,
                          DecodeErrorKind::kNonCanonical);
  }
}

TYPED_TEST(Serialize, PointsOffTheCurveAreRejected) {
  using S = TypeParam;
  using Field = typename TestFixture::Field;
  using AffinePoint = typename TestFixture::AffinePoint;
  // Compressed x with no square root of x^3 + b.
  const Field x = this->x_not_on_curve();
  Bytes c = S::field_bytes(x);
  c[0] |= kCompressed;
  this->expect_rejected("x^3 + b is not a square", c, true, DecodeErrorKind::kNotOnCurve);
  this->expect_rejected("x^3 + b is not a square (kNo)", c, true, DecodeErrorKind::kNotOnCurve,
                        SubgroupCheck::kNo);
  c[0] |= kSign;
  this->expect_rejected("x^3 + b is not a square, sign set", c, true, DecodeErrorKind::kNotOnCurve);

  // Uncompressed: valid coordinates, but y changed.
  const auto g = S::generator();
  const AffinePoint off{g.x, g.y + Field::one()};
  const Bytes u = concat({S::field_bytes(off.x), S::field_bytes(off.y)});
  this->expect_rejected("y changed", u, false, DecodeErrorKind::kNotOnCurve);
  this->expect_rejected("y changed (kNo)", u, false, DecodeErrorKind::kNotOnCurve,
                        SubgroupCheck::kNo);
  // x of one point with y of another.
  const AffinePoint h = this->random_point();
  const Bytes mixed = concat({S::field_bytes(g.x), S::field_bytes(h.y)});
  this->expect_rejected("x of G with the y of another point", mixed, false,
                        DecodeErrorKind::kNotOnCurve);
}

// All-zero coordinates without the infinity flag encode the affine pair (0, 0), which is not
// on the curve (b != 0); it must not be taken for the point at infinity, whose only valid
// uncompressed encoding is 0x40 followed by zeros (as in zkcrypto/bls12_381, which rejects
// it). Accepting it would give the identity a second encoding.
TYPED_TEST(Serialize, ZeroCoordinatesWithoutInfinityFlagAreRejected) {
  using S = TypeParam;
  this->expect_rejected("(0, 0) without the infinity flag", Bytes(S::kU, 0), false,
                        DecodeErrorKind::kNotOnCurve);
  this->expect_rejected("(0, 0) without the infinity flag (kNo)", Bytes(S::kU, 0), false,
                        DecodeErrorKind::kNotOnCurve, SubgroupCheck::kNo);
}

// On the curve but outside the subgroup: kYes rejects, kNo accepts the very point.
TYPED_TEST(Serialize, PointsOutsideTheSubgroup) {
  using S = TypeParam;
  const auto q = this->point_outside_subgroup();
  ASSERT_TRUE(q.is_on_curve());
  SCOPED_TRACE("point " + ::testing::PrintToString(q));
  const Bytes c = S::compress(q), u = S::uncompress(q);
  this->expect_rejected("outside the subgroup", c, true, DecodeErrorKind::kNotInSubgroup);
  this->expect_rejected("outside the subgroup", u, false, DecodeErrorKind::kNotInSubgroup);
  EXPECT_EQ(S::decode_compressed(c, SubgroupCheck::kNo), q);
  EXPECT_EQ(S::decode_uncompressed(u, SubgroupCheck::kNo), q);
  Bytes neg = c;
  neg[0] ^= kSign;
  EXPECT_EQ(S::decode_compressed(neg, SubgroupCheck::kNo), -q);
  this->expect_rejected("outside the subgroup, negated", neg, true,
                        DecodeErrorKind::kNotInSubgroup);
}

// x = 0 on G1 gives the order-3 points (0, ±2): on the curve, outside the subgroup.
TEST(SerializeG1, ZeroXIsTheOrderThreePoint) {
  Bytes c(48, 0);
  c[0] = kCompressed;
  Serialize<G1Ser>::expect_rejected("x = 0", c, true, DecodeErrorKind::kNotInSubgroup);
  const G1Affine t = G1Ser::decode_compressed(c, SubgroupCheck::kNo);
  EXPECT_TRUE(t.x.is_zero());
  EXPECT_EQ(t.y.square(), Fp::from_u64(4));
  EXPECT_FALSE(t.y.is_lexicographically_largest());
}

}  // namespace
