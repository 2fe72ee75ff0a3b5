// Poseidon over BLS12-381 Fr, width 3 (a 2-to-1 hash), x^5 S-box, 8 full + 55 partial
// rounds: the shape of Filecoin's arity-2 Poseidon (neptune), with constants of our own.
//
// The constants are NOT those of neptune or of any published instance; they only need to be
// fixed, documented and reproducible so that circuit and native hash agree:
//   round constant k (k = 0 .. 188, round r = k / 3, element k % 3):
//     SHA-256("prooflab/poseidon/bls12-381/t3/rc" || k as 4 bytes big-endian), read as a
//     256-bit big-endian integer with its top two bits cleared (so it is < 2^254 < r);
//   MDS: the Cauchy matrix M[i][j] = 1 / (x_i + y_j) with x_i = i and y_j = 3 + j (every
//     square submatrix of a Cauchy matrix is invertible, so it is MDS);
//   2-to-1 hash: state (3, a, b) → permutation → element 1 (3 = 2^arity - 1 as the
//     capacity's domain tag, neptune's convention for Merkle trees).
// Each round: add the round constants, apply x^5 (to all elements in the 4 + 4 full
// rounds, to element 0 in the 55 partial rounds between them), multiply by M.
#pragma once

#include <array>
#include <cstddef>

#include "core/field/fr.hpp"

namespace prooflab::circuits {

using field::Fr;

struct PoseidonParams {
  static constexpr std::size_t kWidth = 3;
  static constexpr std::size_t kFullRounds = 8;
  static constexpr std::size_t kPartialRounds = 55;
  static constexpr std::size_t kRounds = kFullRounds + kPartialRounds;
  static constexpr std::uint64_t kDomainTag2to1 = 3;
  static constexpr const char* kConstantsSeed = "prooflab/poseidon/bls12-381/t3/rc";

  std::array<std::array<Fr, kWidth>, kRounds> round_constants;
  std::array<std::array<Fr, kWidth>, kWidth> mds;

  // Whether round r applies the S-box to every element.
  static constexpr bool is_full_round(std::size_t r) {
    return r < kFullRounds / 2 || r >= kFullRounds / 2 + kPartialRounds;
  }
};

// Generated on first use, then shared (thread-safe static initialisation).
const PoseidonParams& poseidon_params();

void poseidon_permute(std::array<Fr, 3>& state);
// The 2-to-1 hash (Merkle node of two children).
Fr poseidon_hash2(const Fr& left, const Fr& right);

}  // namespace prooflab::circuits
