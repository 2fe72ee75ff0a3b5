// Launcher of the fixed-base table's kernel (fixed_base.cuh). C++17.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "gpu/msm/xyzz.cuh"

namespace prooflab::gpu::msm::kernels {

// Windows 1 … windows−1 of the table from window 0 (table[0, n), the bases): one thread per
// point (fixed_base.cuh shifted_windows).
void fixed_base_table(Affine32* table, std::size_t n, std::uint32_t c, std::uint32_t windows, cudaStream_t stream);

}  // namespace prooflab::gpu::msm::kernels
