#include "core/curve/serialize.hpp"

#include <algorithm>
#include <array>

namespace prooflab::curve {
namespace {

constexpr std::uint8_t kFlagCompressed = 0x80;
constexpr std::uint8_t kFlagInfinity = 0x40;
constexpr std::uint8_t kFlagSign = 0x20;
constexpr std::uint8_t kFlagMask = 0xe0;

using field::Fp;
using field::Fp2;

[[noreturn]] void fail(DecodeErrorKind kind, const char* group, const std::string& detail) {
  throw DecodeError(kind, std::string(group) + " decode: " + to_string(kind) + ": " + detail);
}

// Reads a 48-byte big-endian Fp with the flag bits cleared (only for the first element).
Fp read_fp(std::span<const std::uint8_t> in, bool clear_flags, const char* group,
           const char* coordinate) {
  std::array<std::uint8_t, 48> buf;
  std::copy_n(in.begin(), 48, buf.begin());
  if (clear_flags) buf[0] &= static_cast<std::uint8_t>(~kFlagMask);
  const auto v = Fp::from_bytes_be(buf);
  if (!v) fail(DecodeErrorKind::kNonCanonical, group, std::string(coordinate) + " is not below p");
  return *v;
}

void write_fp(const Fp& v, std::span<std::uint8_t> out) {
  v.to_bytes_be(std::span<std::uint8_t, 48>(out.data(), 48));
}

// The checks shared by all four decoders on the flag byte; returns true for infinity.
bool check_flags(std::span<const std::uint8_t> in, bool expect_compressed, const char* group) {
  const std::uint8_t flags = in[0] & kFlagMask;
  if (bool(flags & kFlagCompressed) != expect_compressed)
    fail(DecodeErrorKind::kBadFlags, group,
         expect_compressed ? "compression flag (0x80) not set on a compressed encoding"
                           : "compression flag (0x80) set on an uncompressed encoding");
  if (flags & kFlagInfinity) {
    if (flags & kFlagSign)
      fail(DecodeErrorKind::kBadInfinity, group, "sign flag (0x20) set on the point at infinity");
    const bool rest_zero = (in[0] & ~kFlagMask) == 0 &&
                           std::all_of(in.begin() + 1, in.end(), [](auto b) { return b == 0; });
    if (!rest_zero)
      fail(DecodeErrorKind::kBadInfinity, group,
           "infinity flag (0x40) set but the coordinate bytes are not all zero");
    return true;
  }
  if (!expect_compressed && (flags & kFlagSign))
    fail(DecodeErrorKind::kBadFlags, group, "sign flag (0x20) set on an uncompressed encoding");
  return false;
}

template <class AffinePoint, class Check>
AffinePoint finish(const AffinePoint& p, SubgroupCheck check, Check&& in_subgroup,
                   const char* group) {
  // Reached only with the infinity flag clear, so (0, 0) — our in-memory infinity — is a
  // coordinate pair like any other here, and it is not on the curve.
  if (p.is_infinity() || !p.is_on_curve())
    fail(DecodeErrorKind::kNotOnCurve, group, "y^2 != x^3 + b");
  if (check == SubgroupCheck::kYes && !in_subgroup(p))
    fail(DecodeErrorKind::kNotInSubgroup, group, "point is not in the order-r subgroup");
  return p;
}

}  // namespace

const char* to_string(DecodeErrorKind kind) {
  switch (kind) {
    case DecodeErrorKind::kBadFlags: return "bad flags";
    case DecodeErrorKind::kBadInfinity: return "bad infinity encoding";
    case DecodeErrorKind::kNonCanonical: return "non-canonical coordinate";
    case DecodeErrorKind::kNotOnCurve: return "not on curve";
    case DecodeErrorKind::kNotInSubgroup: return "not in subgroup";
  }
  return "unknown";
}

// ---- G1 ----

void g1_to_compressed(const G1Affine& p, std::span<std::uint8_t, kG1CompressedBytes> out) {
  if (p.is_infinity()) {
    std::fill(out.begin(), out.end(), 0);
    out[0] = kFlagCompressed | kFlagInfinity;
    return;
  }
  write_fp(p.x, out);
  out[0] |= kFlagCompressed;
  if (p.y.is_lexicographically_largest()) out[0] |= kFlagSign;
}

void g1_to_uncompressed(const G1Affine& p, std::span<std::uint8_t, kG1UncompressedBytes> out) {
  if (p.is_infinity()) {
    std::fill(out.begin(), out.end(), 0);
    out[0] = kFlagInfinity;
    return;
  }
  write_fp(p.x, out.subspan(0, 48));
  write_fp(p.y, out.subspan(48, 48));
}

G1Affine g1_from_compressed(std::span<const std::uint8_t, kG1CompressedBytes> in,
                            SubgroupCheck check) {
  constexpr const char* kGroup = "G1 compressed";
  if (check_flags(in, true, kGroup)) return G1Affine::infinity();
  const Fp x = read_fp(in, true, kGroup, "x");
  const auto y = field::sqrt(x.square() * x + G1Curve::b());
  if (!y) fail(DecodeErrorKind::kNotOnCurve, kGroup, "x^3 + 4 has no square root");
  const bool want_largest = in[0] & kFlagSign;
  const G1Affine p{x, y->is_lexicographically_largest() == want_largest ? *y : -*y};
  return finish(p, check, [](const G1Affine& q) { return g1_is_in_subgroup(q); }, kGroup);
}

G1Affine g1_from_uncompressed(std::span<const std::uint8_t, kG1UncompressedBytes> in,
                              SubgroupCheck check) {
  constexpr const char* kGroup = "G1 uncompressed";
  if (check_flags(in, false, kGroup)) return G1Affine::infinity();
  const G1Affine p{read_fp(in.subspan(0, 48), true, kGroup, "x"),
                   read_fp(in.subspan(48, 48), false, kGroup, "y")};
  return finish(p, check, [](const G1Affine& q) { return g1_is_in_subgroup(q); }, kGroup);
}

// ---- G2: each Fp2 coordinate is written c1 then c0 ----

void g2_to_compressed(const G2Affine& p, std::span<std::uint8_t, kG2CompressedBytes> out) {
  if (p.is_infinity()) {
    std::fill(out.begin(), out.end(), 0);
    out[0] = kFlagCompressed | kFlagInfinity;
    return;
  }
  write_fp(p.x.c1, out.subspan(0, 48));
  write_fp(p.x.c0, out.subspan(48, 48));
  out[0] |= kFlagCompressed;
  if (p.y.is_lexicographically_largest()) out[0] |= kFlagSign;
}

void g2_to_uncompressed(const G2Affine& p, std::span<std::uint8_t, kG2UncompressedBytes> out) {
  if (p.is_infinity()) {
    std::fill(out.begin(), out.end(), 0);
    out[0] = kFlagInfinity;
    return;
  }
  write_fp(p.x.c1, out.subspan(0, 48));
  write_fp(p.x.c0, out.subspan(48, 48));
  write_fp(p.y.c1, out.subspan(96, 48));
  write_fp(p.y.c0, out.subspan(144, 48));
}

G2Affine g2_from_compressed(std::span<const std::uint8_t, kG2CompressedBytes> in,
                            SubgroupCheck check) {
  constexpr const char* kGroup = "G2 compressed";
  if (check_flags(in, true, kGroup)) return G2Affine::infinity();
  const Fp2 x{read_fp(in.subspan(48, 48), false, kGroup, "x.c0"),
              read_fp(in.subspan(0, 48), true, kGroup, "x.c1")};
  const auto y = field::sqrt(x.square() * x + G2Curve::b());
  if (!y) fail(DecodeErrorKind::kNotOnCurve, kGroup, "x^3 + 4(u+1) has no square root");
  const bool want_largest = in[0] & kFlagSign;
  const G2Affine p{x, y->is_lexicographically_largest() == want_largest ? *y : -*y};
  return finish(p, check, [](const G2Affine& q) { return g2_is_in_subgroup(q); }, kGroup);
}

G2Affine g2_from_uncompressed(std::span<const std::uint8_t, kG2UncompressedBytes> in,
                              SubgroupCheck check) {
  constexpr const char* kGroup = "G2 uncompressed";
  if (check_flags(in, false, kGroup)) return G2Affine::infinity();
  const G2Affine p{{read_fp(in.subspan(48, 48), false, kGroup, "x.c0"),
                    read_fp(in.subspan(0, 48), true, kGroup, "x.c1")},
                   {read_fp(in.subspan(144, 48), false, kGroup, "y.c0"),
                    read_fp(in.subspan(96, 48), false, kGroup, "y.c1")}};
  return finish(p, check, [](const G2Affine& q) { return g2_is_in_subgroup(q); }, kGroup);
}

}  // namespace prooflab::curve
