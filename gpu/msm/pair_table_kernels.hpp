// Launcher of the pair table's kernel (pair_table.cuh). C++17.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "gpu/msm/xyzz.cuh"

namespace prooflab::gpu::msm::kernels {

// table[j] = bases[2j] + bases[2j + 1] for j < pairs, kInversionBatch entries per thread.
void pair_table(const Affine32* bases, std::size_t pairs, Affine32* table, cudaStream_t stream);

}  // namespace prooflab::gpu::msm::kernels
