// CUB's device-wide inclusive sum of 32-bit counts, for the passes that turn per-word counts
// into positions (prep_msm's tails, the batch addition's shares). C++17-clean.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace prooflab::gpu {

// Scratch bytes inclusive_sum needs for `count` words.
std::size_t inclusive_sum_temp_bytes(std::size_t count);
// out[i] = in[0] + … + in[i] for i < count, queued on `stream` (CudaError naming CUB's call).
void inclusive_sum(const std::uint32_t* in, std::uint32_t* out, std::size_t count, void* temp,
                   std::size_t temp_bytes, cudaStream_t stream);

}  // namespace prooflab::gpu
