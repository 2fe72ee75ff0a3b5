// The G2 kernels of the MSM phases 3-6 (pippenger.cuh with G2Xyzz32 buckets), apart from the
// G1 ones (msm_kernels.cu) so that the G1 kernels compile as before and each file's compile
// stays small. Named g2_*: CUPTI rows tell them from the G1 kernels.
#include <stdexcept>

#include "gpu/cuda_check.hpp"
#include "gpu/msm/msm_block_sums.cuh"
#include "gpu/msm/msm_kernels.hpp"

namespace prooflab::gpu::msm::kernels {
namespace {

// A G2 bucket is 96 32-bit words, twice G1's: two blocks per SM cap the registers at 255,
// the most a thread can have anyway, so no other cap is built (ptxas: 255 registers, 104
// bytes spilled, with the point operations outlined: xyzz.cuh).
__global__ void __launch_bounds__(kThreads, 2)
    g2_accumulate_kernel(ChunkArgs<G2Xyzz32> args, std::size_t chunks) {
  const std::size_t t = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (t < chunks) accumulate_chunk(args, t);
}

__global__ void __launch_bounds__(kThreads) g2_group_heads_kernel(ChunkArgs<G2Xyzz32> args, std::size_t groups) {
  __shared__ G2Xyzz32 sh[kThreads];  // 48 KiB, the static limit (as g2_sum_points)
  group_heads_warp(sh, args, groups);
}

__global__ void __launch_bounds__(kThreads) g2_fixup_kernel(ChunkArgs<G2Xyzz32> args, std::size_t chunks) {
  const std::size_t t = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (t < chunks) fixup_chunk(args, t);
}

__global__ void __launch_bounds__(kThreads) g2_reduce_kernel(ReduceArgs<G2Xyzz32> args, std::size_t threads) {
  const std::size_t g = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (g < threads) reduce_segment(args, g);
}

// 128 G2 buckets: 48 KiB, the static shared-memory limit.
__global__ void __launch_bounds__(kThreads)
    g2_sum_points_kernel(const G2Xyzz32* in, std::size_t set_len, std::size_t per_block, unsigned blocks_per_set,
                    G2Xyzz32* out) {
  __shared__ G2Xyzz32 sh[kThreads];
  sum_points_block(sh, in, set_len, per_block, blocks_per_set, out);
}

__global__ void __launch_bounds__(kThreads)
    g2_bitmap_sum_kernel(const G2Affine32* bases, const std::uint64_t* bitmap, std::size_t n,
                         const std::uint32_t* ends, std::uint32_t share, std::uint32_t total,
                         std::size_t threads, G2Xyzz32* out) {
  bitmap_share_thread(bases, bitmap, n, ends, share, total, threads, out);
}

}  // namespace

void accumulate(const ChunkArgs<G2Xyzz32>& args, std::size_t chunks, unsigned min_blocks,
                cudaStream_t stream) {
  if (min_blocks != 2) throw std::invalid_argument("gpu g2 msm: accumulate_min_blocks must be 2");
  g2_accumulate_kernel<<<grid_for(chunks), kThreads, 0, stream>>>(args, chunks);
  check_launch("msm g2_accumulate_kernel");
}

void group_heads(const ChunkArgs<G2Xyzz32>& args, std::size_t groups, cudaStream_t stream) {
  g2_group_heads_kernel<<<grid_for_groups(groups), kThreads, 0, stream>>>(args, groups);
  check_launch("msm g2_group_heads_kernel");
}

void fixup(const ChunkArgs<G2Xyzz32>& args, std::size_t chunks, cudaStream_t stream) {
  g2_fixup_kernel<<<grid_for(chunks), kThreads, 0, stream>>>(args, chunks);
  check_launch("msm g2_fixup_kernel");
}

void reduce(const ReduceArgs<G2Xyzz32>& args, std::size_t threads, cudaStream_t stream) {
  g2_reduce_kernel<<<grid_for(threads), kThreads, 0, stream>>>(args, threads);
  check_launch("msm g2_reduce_kernel");
}

void sum_points(const G2Xyzz32* in, std::size_t set_len, std::size_t per_block, std::size_t sets,
                G2Xyzz32* out, cudaStream_t stream) {
  const std::size_t per_set = (set_len + per_block - 1) / per_block;
  g2_sum_points_kernel<<<static_cast<unsigned>(sets * per_set), kThreads, 0, stream>>>(in, set_len, per_block,
                                                                        static_cast<unsigned>(per_set), out);
  check_launch("msm g2_sum_points_kernel");
}

void bitmap_sum(const G2Affine32* bases, const std::uint64_t* bitmap, std::size_t n, const std::uint32_t* ends,
                std::uint32_t share, std::uint32_t total, std::size_t threads, G2Xyzz32* out, cudaStream_t stream,
                const G2Affine32* table, std::uint32_t group) {
  if (group != 1 || table) throw std::invalid_argument("gpu g2 batch_add: there is no G2 group table");
  g2_bitmap_sum_kernel<<<grid_for(threads), kThreads, 0, stream>>>(bases, bitmap, n, ends, share, total,
                                                                  threads, out);
  check_launch("msm g2_bitmap_sum_kernel");
}

}  // namespace prooflab::gpu::msm::kernels
