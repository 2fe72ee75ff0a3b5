#include "gpu/msm/pair_table_kernels.hpp"

#include "gpu/cuda_check.hpp"
#include "gpu/msm/msm_block_sums.cuh"
#include "gpu/msm/pair_table.cuh"

namespace prooflab::gpu::msm::kernels {
namespace {

__global__ void __launch_bounds__(kThreads)
    pair_table_kernel(const Affine32* bases, std::size_t pairs, Affine32* table) {
  const std::size_t t = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  pair_sums<Xyzz32>(bases, pairs, t, table);
}

}  // namespace

void pair_table(const Affine32* bases, std::size_t pairs, Affine32* table, cudaStream_t stream) {
  if (pairs == 0) return;
  pair_table_kernel<<<grid_for((pairs + kInversionBatch - 1) / kInversionBatch), kThreads, 0, stream>>>(bases, pairs,
                                                                                                      table);
  check_launch("msm pair_table_kernel");
}

}  // namespace prooflab::gpu::msm::kernels
