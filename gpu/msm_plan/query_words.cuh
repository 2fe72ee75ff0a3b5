// prep_msm's classification of one query on the device, as per-thread functions shared by the
// kernels (plan_kernels.cu) and the host tests (gpu_msm_plan_simulation_test.cpp), which run
// this very code word by word with the emulated carry chain. C++17, host and device.
//
// A query's scalars are the witness values of its bases' variables: base p reads variable
// vars[p] (A, B: the densities' selection, groth16::query_variables) or first_var + p (L: the
// aux variables). The positions are cut into 32-bit words; thread `word` classifies its 32
// positions with groth16::classify_scalar (the CPU's rule), then — once an inclusive scan of
// the words' tail counts has given every word its first output slot — writes its tails'
// positions and canonical scalars in position order: the CPU's order, as a stream compaction
// (flags, prefix sum, scatter). The ones bitmap's 32-bit words are, little-endian, the 64-bit
// words core's QueryPlan::ones and the batch additions use.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/groth16/scalar_class.hpp"
#include "gpu/field/fields.cuh"

namespace prooflab::gpu::msm_plan {

constexpr unsigned kWordBits = 32;

// One query as the kernels read it (device or host pointers alike).
struct QueryView {
  const field::Fr32* witness = nullptr;  // [inputs..., aux...], Montgomery form
  const std::uint32_t* vars = nullptr;   // variable of each base; null: first_var + position
  std::uint32_t first_var = 0;
  std::uint64_t size = 0;  // bases in the query

  PROOFLAB_HDI const field::Fr32& scalar(std::uint64_t position) const {
    return witness[vars ? vars[position] : first_var + position];
  }
  // 32-bit words of the ones bitmap: a whole number of 64-bit words, the padding zero.
  PROOFLAB_HDI std::uint64_t words() const { return (size + 63) / 64 * 2; }
};

PROOFLAB_HDI unsigned popcount32(std::uint32_t x) {
#if defined(__CUDA_ARCH__)
  return static_cast<unsigned>(__popc(x));
#else
  return static_cast<unsigned>(__builtin_popcount(x));
#endif
}

// The first pass's outputs, one entry per 32-bit word.
struct ClassifyArgs {
  QueryView query;
  std::uint32_t* ones = nullptr;        // the ones bitmap
  std::uint32_t* tails = nullptr;       // bit set: the position is a tail
  std::uint32_t* ones_count = nullptr;  // popcounts, reduced to num_ones
  std::uint32_t* tail_count = nullptr;  // popcounts, scanned into each word's end slot
};

// What thread `word` does in the first pass.
PROOFLAB_HDI void classify_word(const ClassifyArgs& args, std::uint64_t word) {
  if (word >= args.query.words()) return;
  std::uint32_t ones = 0, tails = 0;
  const std::uint64_t first = word * kWordBits;
  for (unsigned bit = 0; bit < kWordBits && first + bit < args.query.size; ++bit) {
    switch (groth16::classify_scalar(args.query.scalar(first + bit))) {
      case groth16::ScalarClass::kOne:
        ones |= 1u << bit;
        break;
      case groth16::ScalarClass::kTail:
        tails |= 1u << bit;
        break;
      case groth16::ScalarClass::kZero:
        break;
    }
  }
  args.ones[word] = ones;
  args.tails[word] = tails;
  args.ones_count[word] = popcount32(ones);
  args.tail_count[word] = popcount32(tails);
}

// The second pass: tail_end is the inclusive scan of tail_count (word w's tails take slots
// [tail_end[w] − popcount(tails[w]), tail_end[w])).
struct ScatterArgs {
  QueryView query;
  const std::uint32_t* tails = nullptr;
  const std::uint32_t* tail_end = nullptr;
  std::uint32_t* tail_index = nullptr;     // the tail's base positions
  field::Fr32* tail_scalars = nullptr;     // canonical (msm::Scalar's layout)
};

// What thread `word` does in the second pass.
PROOFLAB_HDI void scatter_word_tails(const ScatterArgs& args, std::uint64_t word) {
  if (word >= args.query.words()) return;
  std::uint32_t tails = args.tails[word];
  std::uint32_t slot = args.tail_end[word] - popcount32(tails);
  const std::uint64_t first = word * kWordBits;
  for (unsigned bit = 0; tails; ++bit, tails >>= 1) {
    if (!(tails & 1u)) continue;
    const std::uint64_t position = first + bit;
    args.tail_index[slot] = static_cast<std::uint32_t>(position);
    args.tail_scalars[slot] = field::Fr32::from_mont(args.query.scalar(position));
    ++slot;
  }
}

}  // namespace prooflab::gpu::msm_plan
