// The fixed-base table of a G1 query resident on the device: W·n affine points, entry w·n + i
// = 2^(c·w)·P_i (fixed_base.cuh), built once on the device from the resident bases; the MSM
// over it (Msm::run_fixed_base) is Pippenger's fixed-base mode, one bucket set for all W
// windows (pippenger.cuh, DigitPlan). It trades W times the query's memory (2^24 points at
// c = 22: 12 × 1.61 GB) for a W-fold smaller bucket reduction and no Horner step, which lets
// the window widen to fewer windows (fewer additions). docs/gpu.md, "Fixed-base MSM". C++17.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "gpu/memory/device_allocator.hpp"
#include "gpu/msm/msm.hpp"

namespace prooflab::gpu::msm {

class FixedBaseTable {
 public:
  // Builds the table for n resident bases d_bases (they are copied; the table does not keep
  // them) with window width window_bits (0: plan_fixed_base_window_bits(n)). Throws
  // std::invalid_argument for a width outside [2, 24] or W·n ≥ 2^31 entries, before any
  // allocation; DeviceOutOfMemory names `stage`. Synchronises `stream`.
  FixedBaseTable(memory::DeviceAllocator& alloc, const G1AffineRaw* d_bases, std::size_t n,
                 unsigned window_bits, cudaStream_t stream, const char* stage = "fixed_base_table");

  // Device bytes the table of n points takes at this width (0: the planned one).
  static std::size_t bytes(std::size_t n, unsigned window_bits = 0);
  // The width a table of n points is built with when window_bits is 0.
  static unsigned planned_window_bits(std::size_t n);

  unsigned window_bits() const { return c_; }
  unsigned windows() const { return windows_; }
  std::size_t points() const { return n_; }  // n: the query's points (the table holds W·n)
  const G1AffineRaw* data() const { return table_.get(); }
  double build_ms() const { return build_ms_; }  // device time of the build (CUDA events)

 private:
  unsigned c_ = 0, windows_ = 0;
  std::size_t n_ = 0;
  memory::DeviceBuffer<G1AffineRaw> table_;
  double build_ms_ = 0;
};

}  // namespace prooflab::gpu::msm
