// Curve-wide constants of BLS12-381 shared by G1, G2 and the pairing.
#pragma once

#include <cstdint>

namespace prooflab::curve {

// The curve parameter x = -0xd201000000010000 (REFERENCE.md); we store |x| and its sign.
inline constexpr std::uint64_t kBlsXAbs = 0xd201000000010000ULL;
inline constexpr bool kBlsXIsNegative = true;

}  // namespace prooflab::curve
