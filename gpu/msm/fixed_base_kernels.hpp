// Launcher of the fixed-base table's kernel (fixed_base.cuh). C++17.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "gpu/msm/xyzz.cuh"

namespace prooflab::gpu::msm::kernels {

// next[i] = 2^c·prev[i] for i < n (affine; one thread per point).
void fixed_base_window(const Affine32* prev, Affine32* next, std::size_t n, std::uint32_t c,
                       cudaStream_t stream);

}  // namespace prooflab::gpu::msm::kernels
