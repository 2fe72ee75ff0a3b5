// Zcash-format point encoding (the format of bellman/bls12_381 and of Filecoin parameter
// files): big-endian x (G2: c1 before c0), with three flag bits in the first byte —
// 0x80 compressed, 0x40 point at infinity, 0x20 y is the lexicographically larger root.
// Decoding is strict and says which rule a bad encoding broke.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>

#include "core/curve/g1.hpp"
#include "core/curve/g2.hpp"

namespace prooflab::curve {

inline constexpr std::size_t kG1CompressedBytes = 48;
inline constexpr std::size_t kG1UncompressedBytes = 96;
inline constexpr std::size_t kG2CompressedBytes = 96;
inline constexpr std::size_t kG2UncompressedBytes = 192;

enum class DecodeErrorKind {
  kBadFlags,          // compression flag wrong for the form, sign flag where none is allowed
  kBadInfinity,       // infinity flag with other non-zero bits
  kNonCanonical,      // a coordinate >= p
  kNotOnCurve,        // no square root (compressed) or y^2 != x^3 + b (uncompressed)
  kNotInSubgroup,     // on the curve but outside the order-r subgroup
};

const char* to_string(DecodeErrorKind kind);

class DecodeError : public std::runtime_error {
 public:
  DecodeError(DecodeErrorKind kind, const std::string& what)
      : std::runtime_error(what), kind_(kind) {}
  DecodeErrorKind kind() const { return kind_; }

 private:
  DecodeErrorKind kind_;
};

// Whether decoding runs the subgroup check. Only for data already validated once (e.g. a
// parameter file with a verified checksum written by this program).
enum class SubgroupCheck { kYes, kNo };

void g1_to_compressed(const G1Affine& p, std::span<std::uint8_t, kG1CompressedBytes> out);
void g1_to_uncompressed(const G1Affine& p, std::span<std::uint8_t, kG1UncompressedBytes> out);
G1Affine g1_from_compressed(std::span<const std::uint8_t, kG1CompressedBytes> in,
                            SubgroupCheck check = SubgroupCheck::kYes);
G1Affine g1_from_uncompressed(std::span<const std::uint8_t, kG1UncompressedBytes> in,
                              SubgroupCheck check = SubgroupCheck::kYes);

void g2_to_compressed(const G2Affine& p, std::span<std::uint8_t, kG2CompressedBytes> out);
void g2_to_uncompressed(const G2Affine& p, std::span<std::uint8_t, kG2UncompressedBytes> out);
G2Affine g2_from_compressed(std::span<const std::uint8_t, kG2CompressedBytes> in,
                            SubgroupCheck check = SubgroupCheck::kYes);
G2Affine g2_from_uncompressed(std::span<const std::uint8_t, kG2UncompressedBytes> in,
                              SubgroupCheck check = SubgroupCheck::kYes);

}  // namespace prooflab::curve
