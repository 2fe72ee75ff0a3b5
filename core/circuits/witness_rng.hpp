// The deterministic stream that witness values are drawn from. Circuits derive everything
// that varies between partitions (bits, field elements, challenge positions) from their
// partition seed through it, in an order fixed by the circuit's structure, so a seed gives
// the same witness in every mode and on every machine. SplitMix64: tiny, fast, and good
// enough for benchmark data (this is not a cryptographic source).
#pragma once

#include <cstdint>

#include "core/field/fr.hpp"

namespace prooflab::circuits {

class WitnessRng {
 public:
  explicit WitnessRng(std::uint64_t seed) : state_(seed) {}
  // A stream of its own for each purpose, so adding draws to one part of a circuit does not
  // shift the values of another.
  WitnessRng fork(std::uint64_t stream) const {
    WitnessRng r(state_ ^ (stream * 0xd1b54a32d192ed03ULL));
    r.next_u64();
    return r;
  }

  std::uint64_t next_u64() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  std::uint32_t next_u32() { return static_cast<std::uint32_t>(next_u64() >> 32); }
  // Bits come 64 at a time from one draw.
  bool next_bit() {
    if (bits_left_ == 0) {
      bits_ = next_u64();
      bits_left_ = 64;
    }
    const bool b = bits_ & 1;
    bits_ >>= 1;
    --bits_left_;
    return b;
  }
  // Uniform below 2^254 (< r): four draws, top two bits cleared.
  field::Fr next_fr() {
    field::BigInt<4> v;
    for (auto& limb : v) limb = next_u64();
    v[3] &= (std::uint64_t{1} << 62) - 1;
    return field::Fr::from_canonical(v);
  }

 private:
  std::uint64_t state_;
  std::uint64_t bits_ = 0;
  unsigned bits_left_ = 0;
};

}  // namespace prooflab::circuits
