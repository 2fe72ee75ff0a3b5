// Fr: the 255-bit scalar field of BLS12-381 (constants from shared/REFERENCE.md).
#pragma once

#include "core/field/mont.hpp"

namespace prooflab::field {

struct FrParams {
  static constexpr std::size_t kLimbs = 4;
  static constexpr std::size_t kBits = 255;
  static constexpr std::size_t kBytes = 32;
  static constexpr BigInt<4> kModulus =
      bigint_from_hex<4>("0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001");
  static constexpr BigInt<4> kOne = {0x00000001fffffffeULL, 0x5884b7fa00034802ULL,
                                     0x998c4fefecbc4ff5ULL, 0x1824b159acc5056fULL};
  static constexpr BigInt<4> kR2 = {0xc999e990f3f29c6dULL, 0x2b6cedcb87925c23ULL,
                                    0x05d314967254398fULL, 0x0748d9d99f59ff11ULL};
  static constexpr std::uint64_t kInv = 0xfffffffeffffffffULL;
};

using Fr = MontField<FrParams>;

// The multiplicative group of Fr has order 2^32 · t with t odd.
inline constexpr unsigned kFrTwoAdicity = 32;
// 7 generates Fr* (and is a quadratic non-residue): the coset shift of the NTT.
inline constexpr std::uint64_t kFrMultiplicativeGenerator = 7;

// A primitive 2^32-th root of unity; ω_{2^k} = ω^(2^(32-k)).
inline constexpr Fr fr_root_of_unity_2_32() {
  return Fr::from_hex("0x16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b");
}

// A primitive 2^log_n-th root of unity, log_n <= 32.
inline constexpr Fr fr_root_of_unity(unsigned log_n) {
  Fr w = fr_root_of_unity_2_32();
  for (unsigned i = log_n; i < kFrTwoAdicity; ++i) w = w.square();
  return w;
}

}  // namespace prooflab::field
