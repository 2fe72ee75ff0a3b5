// The group table of a G1 query resident on the device, for the batch addition (Σ of the bases
// whose witness value is one): for each group of g = 2 or 4 consecutive bases, the affine sums
// of every combination of two or more of them (group_table.cuh: 1 entry per pair, 11 per group
// of 4), built once on the device from the resident bases. Msm::sum_selected_grouped then walks
// the bitmap g bits at a time and adds one point per group with any bit set: at a density d,
// 1 − (1 − d)^g additions per group instead of g·d (pairs −24…−26 %, groups of 4 −52 % on
// the porep-like witness), for E/g of the query's memory more (pairs 0.5 ×, groups of 4 2.75 ×:
// 0.8 / 4.4 GB at 2^24). docs/gpu.md, "Group tables". C++17.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "gpu/memory/device_allocator.hpp"
#include "gpu/msm/msm.hpp"

namespace prooflab::gpu::msm {

class GroupTable {
 public:
  // Builds the table of n resident bases d_bases (not kept: the sum takes them again) in groups
  // of `group` (2 or 4; std::invalid_argument otherwise). DeviceOutOfMemory names `stage`.
  // Synchronises `stream`.
  GroupTable(memory::DeviceAllocator& alloc, const G1AffineRaw* d_bases, std::size_t n, unsigned group,
             cudaStream_t stream, const char* stage = "group_table");

  // ⌈n / group⌉ groups of 2^group − 1 − group points; 0 for n < 2 (nothing to combine).
  static std::size_t entries(std::size_t n, unsigned group);
  static std::size_t bytes(std::size_t n, unsigned group) { return entries(n, group) * sizeof(G1AffineRaw); }

  std::size_t points() const { return n_; }  // n: the query's points
  unsigned group() const { return group_; }
  const G1AffineRaw* data() const { return table_.get(); }  // null for n < 2
  double build_ms() const { return build_ms_; }             // device time of the build (CUDA events)

 private:
  std::size_t n_ = 0;
  unsigned group_ = 2;
  memory::DeviceBuffer<G1AffineRaw> table_;
  double build_ms_ = 0;
};

}  // namespace prooflab::gpu::msm
