// A Groth16 proof and its 192-byte encoding (compressed A ‖ B ‖ C: 48 + 96 + 48 bytes,
// the reference's layout).
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "core/curve/g1.hpp"
#include "core/curve/g2.hpp"

namespace prooflab::groth16 {

inline constexpr std::size_t kProofBytes = 192;

struct Proof {
  curve::G1Affine a;
  curve::G2Affine b;
  curve::G1Affine c;
  friend bool operator==(const Proof&, const Proof&) = default;
};

std::array<std::uint8_t, kProofBytes> serialize_proof(const Proof& proof);
// Strict: every point must decode (flags, canonical, on curve, in subgroup); throws
// curve::DecodeError naming the element (A, B or C) and the rule it broke.
Proof deserialize_proof(std::span<const std::uint8_t, kProofBytes> bytes);

}  // namespace prooflab::groth16
