// Launcher of the group table's kernel (group_table.cuh). C++17.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "gpu/msm/xyzz.cuh"

namespace prooflab::gpu::msm::kernels {

// The `entries` = ⌈n/group⌉·(2^group − 1 − group) sums of a table of n bases in groups of
// `group` (group_table.cuh), kInversionBatch entries per thread.
void group_table(const Affine32* bases, std::size_t n, std::uint32_t group, std::size_t entries, Affine32* table,
                 cudaStream_t stream);

}  // namespace prooflab::gpu::msm::kernels
