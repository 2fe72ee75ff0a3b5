#include "gpu/msm/group_table_kernels.hpp"

#include "gpu/cuda_check.hpp"
#include "gpu/msm/group_table.cuh"
#include "gpu/msm/msm_block_sums.cuh"

namespace prooflab::gpu::msm::kernels {
namespace {

__global__ void __launch_bounds__(kThreads)
    group_table_kernel(const Affine32* bases, std::size_t n, std::uint32_t group, std::size_t entries,
                       Affine32* table) {
  const std::size_t t = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  group_sums<Xyzz32>(bases, n, group, entries, t, table);
}

}  // namespace

void group_table(const Affine32* bases, std::size_t n, std::uint32_t group, std::size_t entries, Affine32* table,
                 cudaStream_t stream) {
  if (entries == 0) return;
  group_table_kernel<<<grid_for((entries + kInversionBatch - 1) / kInversionBatch), kThreads, 0, stream>>>(
      bases, n, group, entries, table);
  check_launch("msm group_table_kernel");
}

}  // namespace prooflab::gpu::msm::kernels
