// Fp: the 381-bit base field of BLS12-381 (constants from shared/REFERENCE.md).
#pragma once

#include <optional>

#include "core/field/mont.hpp"

namespace prooflab::field {

struct FpParams {
  static constexpr std::size_t kLimbs = 6;
  static constexpr std::size_t kBits = 381;
  static constexpr std::size_t kBytes = 48;
  static constexpr BigInt<6> kModulus = bigint_from_hex<6>(
      "0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9fefff"
      "fffffaaab");
  static constexpr BigInt<6> kOne = {0x760900000002fffdULL, 0xebf4000bc40c0002ULL,
                                     0x5f48985753c758baULL, 0x77ce585370525745ULL,
                                     0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL};
  static constexpr BigInt<6> kR2 = {0xf4df1f341c341746ULL, 0x0a76e6a609d104f1ULL,
                                    0x8de5476c4c95b6d5ULL, 0x67eb88a9939d83c0ULL,
                                    0x9a793e85b519952dULL, 0x11988fe592cae3aaULL};
  static constexpr std::uint64_t kInv = 0x89f3fffcfffcfffdULL;
};

using Fp = MontField<FpParams>;

// p ≡ 3 (mod 4), so a square root is a^((p+1)/4); nullopt for a non-square.
inline std::optional<Fp> sqrt(const Fp& a) {
  static constexpr auto kExp = bigint_shr(bigint_add_small(FpParams::kModulus, 1), 2);
  const Fp s = a.pow(kExp);
  if (s.square() == a) return s;
  return std::nullopt;
}

}  // namespace prooflab::field
