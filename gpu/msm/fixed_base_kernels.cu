#include "gpu/msm/fixed_base_kernels.hpp"

#include "gpu/cuda_check.hpp"
#include "gpu/msm/fixed_base.cuh"
#include "gpu/msm/msm_block_sums.cuh"

namespace prooflab::gpu::msm::kernels {
namespace {

__global__ void __launch_bounds__(kThreads)
    fixed_base_window_kernel(const Affine32* prev, Affine32* next, std::size_t n, std::uint32_t c) {
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i < n) next[i] = times_two_to<Xyzz32>(prev[i], c);
}

}  // namespace

void fixed_base_window(const Affine32* prev, Affine32* next, std::size_t n, std::uint32_t c,
                       cudaStream_t stream) {
  fixed_base_window_kernel<<<grid_for(n), kThreads, 0, stream>>>(prev, next, n, c);
  check_launch("msm fixed_base_window_kernel");
}

}  // namespace prooflab::gpu::msm::kernels
