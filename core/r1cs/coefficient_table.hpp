// The distinct coefficients of a constraint system. Matrices store a 32-bit id per nonzero
// instead of a 32-byte field element: in SHA-256-heavy circuits nearly every coefficient is
// ±1 or a power of two, so the table holds a few hundred entries while the matrices hold
// billions of nonzeros at PoRep scale (8 bytes per nonzero instead of 36).
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "core/field/fr.hpp"

namespace prooflab::r1cs {

using field::Fr;

// Ids fixed in every table, so hot loops can add or subtract without a multiplication.
inline constexpr std::uint32_t kCoeffOne = 0;
inline constexpr std::uint32_t kCoeffMinusOne = 1;

class CoefficientTable {
 public:
  CoefficientTable() {
    values_.push_back(Fr::one());
    values_.push_back(-Fr::one());
    index_.emplace(Fr::one(), kCoeffOne);
    index_.emplace(-Fr::one(), kCoeffMinusOne);
  }

  std::uint32_t intern(const Fr& c) {
    if (c == values_[kCoeffOne]) return kCoeffOne;
    if (c == values_[kCoeffMinusOne]) return kCoeffMinusOne;
    auto [it, inserted] = index_.try_emplace(c, static_cast<std::uint32_t>(values_.size()));
    if (inserted) values_.push_back(c);
    return it->second;
  }

  const std::vector<Fr>& values() const { return values_; }
  std::size_t size() const { return values_.size(); }

 private:
  struct Hash {
    std::size_t operator()(const Fr& c) const {
      // Montgomery limbs are uniformly spread already; mix two of them.
      return static_cast<std::size_t>(c.mont[0] ^ (c.mont[1] * 0x9e3779b97f4a7c15ULL));
    }
  };
  std::vector<Fr> values_;
  std::unordered_map<Fr, std::uint32_t, Hash> index_;
};

}  // namespace prooflab::r1cs
