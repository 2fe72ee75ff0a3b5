#include "gpu/msm/fixed_base_kernels.hpp"

#include "gpu/cuda_check.hpp"
#include "gpu/msm/fixed_base.cuh"
#include "gpu/msm/msm_block_sums.cuh"

namespace prooflab::gpu::msm::kernels {
namespace {

__global__ void __launch_bounds__(kThreads)
    fixed_base_table_kernel(Affine32* table, std::size_t n, std::uint32_t c, std::uint32_t windows) {
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i < n) shifted_windows<Xyzz32>(table, n, i, c, windows);
}

}  // namespace

void fixed_base_table(Affine32* table, std::size_t n, std::uint32_t c, std::uint32_t windows, cudaStream_t stream) {
  fixed_base_table_kernel<<<grid_for(n), kThreads, 0, stream>>>(table, n, c, windows);
  check_launch("msm fixed_base_table_kernel");
}

}  // namespace prooflab::gpu::msm::kernels
