// The pair table of a G1 query resident on the device, for the batch addition (Σ of the bases
// whose witness value is one): ⌊n/2⌋ affine points, entry j = P_2j + P_2j+1 (pair_table.cuh),
// built once on the device from the resident bases. Msm::sum_selected_pairs then walks the
// bitmap two bits at a time and adds one point per pair with either bit set: at a density d,
// 1 − (1 − d)² additions per pair instead of 2d (−23 % at the porep-like 46 %, −25 % at 50 %),
// for half the query's memory more (0.8 GB at 2^24). docs/gpu.md, "Pair tables". C++17.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "gpu/memory/device_allocator.hpp"
#include "gpu/msm/msm.hpp"

namespace prooflab::gpu::msm {

class PairTable {
 public:
  // Builds the table of n resident bases d_bases (not kept: the sum takes them again).
  // DeviceOutOfMemory names `stage`. Synchronises `stream`.
  PairTable(memory::DeviceAllocator& alloc, const G1AffineRaw* d_bases, std::size_t n, cudaStream_t stream,
            const char* stage = "pair_table");

  static std::size_t bytes(std::size_t n) { return n / 2 * sizeof(G1AffineRaw); }

  std::size_t points() const { return n_; }  // n: the query's points (the table holds n / 2)
  const G1AffineRaw* data() const { return table_.get(); }
  double build_ms() const { return build_ms_; }  // device time of the build (CUDA events)

 private:
  std::size_t n_ = 0;
  memory::DeviceBuffer<G1AffineRaw> table_;
  double build_ms_ = 0;
};

}  // namespace prooflab::gpu::msm
