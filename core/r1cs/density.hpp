// Density bitmaps: which variables occur in a matrix at all. The prover uses them to skip
// the bases of variables that never occur (bellperson's DensityTracker): a variable is
// "dense" for A when it appears with a nonzero coefficient in any A row, likewise for B.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace prooflab::r1cs {

class DensityBitmap {
 public:
  DensityBitmap() = default;
  explicit DensityBitmap(std::size_t size) : size_(size), words_((size + 63) / 64, 0) {}

  std::size_t size() const { return size_; }
  bool test(std::size_t i) const { return (words_[i / 64] >> (i % 64)) & 1; }
  bool operator[](std::size_t i) const { return test(i); }
  void set(std::size_t i) { words_[i / 64] |= std::uint64_t{1} << (i % 64); }
  // The number of dense variables.
  std::size_t count() const {
    std::size_t n = 0;
    for (const std::uint64_t w : words_) n += static_cast<std::size_t>(std::popcount(w));
    return n;
  }
  double fraction() const { return size_ == 0 ? 0.0 : static_cast<double>(count()) / size_; }
  // Bit i of the bitmap is bit (i % 64) of words()[i / 64]; bits past size() are zero.
  const std::vector<std::uint64_t>& words() const { return words_; }

  friend bool operator==(const DensityBitmap&, const DensityBitmap&) = default;

 private:
  std::size_t size_ = 0;
  std::vector<std::uint64_t> words_;
};

}  // namespace prooflab::r1cs
