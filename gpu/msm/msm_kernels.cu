#include "gpu/msm/msm_kernels.hpp"

#include <cub/device/device_radix_sort.cuh>
#include <stdexcept>
#include <string>

#include "gpu/cuda_check.hpp"
#include "gpu/msm/msm_block_sums.cuh"

#ifndef PROOFLAB_GPU_MSM_CAP_VARIANTS  // set to 0 or 1 by gpu/CMakeLists.txt
#define PROOFLAB_GPU_MSM_CAP_VARIANTS 0
#endif

namespace prooflab::gpu::msm::kernels {
namespace {

__global__ void digits_kernel(DigitPlan plan, const std::uint32_t* scalars, std::size_t n, std::size_t stride,
                              std::uint32_t* keys, std::uint32_t* vals) {
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i < n) make_digits(plan, scalars + 8 * i, static_cast<std::uint32_t>(i), n, stride, keys, vals);
}

template <class Bucket>
__global__ void __launch_bounds__(256) clear_kernel(Bucket* buckets, std::size_t count) {
  const std::size_t b = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (b < count) clear_bucket(buckets, b);
}

// MinBlocks caps the registers at 65536 / (kThreads · MinBlocks): 2 → 228 (no cap in effect),
// 3 → 168 (the default; 12 warps per SM), 4 → 128 (spills; 6 % slower on the H200). Only 3 is
// built unless PROOFLAB_GPU_MSM_CAP_VARIANTS is on (the benchmark's msm_variant rows; the two
// others cost ~7 % of this file's compile time).
template <int MinBlocks>
__global__ void __launch_bounds__(kThreads, MinBlocks)
    accumulate_kernel(ChunkArgs<Xyzz32> args, std::size_t chunks) {
  const std::size_t t = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (t < chunks) accumulate_chunk(args, t);
}

__global__ void __launch_bounds__(kThreads) group_heads_kernel(ChunkArgs<Xyzz32> args, std::size_t groups) {
  __shared__ Xyzz32 sh[kThreads];
  group_heads_warp(sh, args, groups);
}

__global__ void __launch_bounds__(kThreads) fixup_kernel(ChunkArgs<Xyzz32> args, std::size_t chunks) {
  const std::size_t t = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (t < chunks) fixup_chunk(args, t);
}

// No register cap: 255 registers, 2 blocks per SM. A cap of 168 (3 blocks, as the
// accumulation's) spilled 1.9 KB per thread and took 11.96 ms at 2^24 against 9.44 (H100,
// results/2026-12-07-msm-reduce-waves call 4).
__global__ void __launch_bounds__(kThreads) reduce_kernel(ReduceArgs<Xyzz32> args, std::size_t threads) {
  const std::size_t g = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (g < threads) reduce_segment(args, g);
}

__global__ void __launch_bounds__(kThreads)
    sum_points_kernel(const Xyzz32* in, std::size_t set_len, std::size_t per_block, unsigned blocks_per_set,
                    Xyzz32* out) {
  __shared__ Xyzz32 sh[kThreads];
  sum_points_block(sh, in, set_len, per_block, blocks_per_set, out);
}

// Three blocks per SM (168 registers), as the accumulation whose mixed addition it runs.
// kGroup 2 or 4: over a group table (group_table.hpp).
template <std::uint32_t kGroup>
__global__ void __launch_bounds__(kThreads, 3)
    bitmap_sum_kernel(const Affine32* bases, const std::uint64_t* bitmap, std::size_t n,
                      const std::uint32_t* ends, std::uint32_t share, std::uint32_t total,
                      std::size_t threads, Xyzz32* out, const Affine32* table) {
  bitmap_share_thread<Xyzz32, kGroup>(bases, bitmap, n, ends, share, total, threads, out, table);
}

__global__ void __launch_bounds__(256) bitmap_counts_kernel(const std::uint64_t* bitmap, std::size_t n,
                                                            std::uint32_t group, std::uint32_t* counts) {
  const std::size_t w = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (w < (n + 63) / 64) counts[w] = popcount64(selected_units(word_below_n(bitmap, n, w), group));
}

}  // namespace

void digits(const DigitPlan& plan, const std::uint32_t* scalars, std::size_t n, std::size_t stride,
            std::uint32_t* keys, std::uint32_t* vals, cudaStream_t stream) {
  digits_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(plan, scalars, n, stride, keys,
                                                                           vals);
  check_launch("msm digits_kernel");
}

void clear_buckets(Xyzz32* buckets, std::size_t count, cudaStream_t stream) {
  clear_kernel<<<static_cast<unsigned>((count + 255) / 256), 256, 0, stream>>>(buckets, count);
  check_launch("msm clear_kernel");
}

// The G2 buckets' clear is here too: it is one store per bucket, no point arithmetic to keep
// apart (msm_g2_kernels.cu).
void clear_buckets(G2Xyzz32* buckets, std::size_t count, cudaStream_t stream) {
  clear_kernel<<<static_cast<unsigned>((count + 255) / 256), 256, 0, stream>>>(buckets, count);
  check_launch("msm clear_kernel (G2)");
}

std::size_t sort_temp_bytes(std::size_t entries, int end_bit) {
  cub::DoubleBuffer<std::uint32_t> k(nullptr, nullptr), v(nullptr, nullptr);
  std::size_t bytes = 0;
  check_cuda(cub::DeviceRadixSort::SortPairs(nullptr, bytes, k, v, static_cast<int>(entries), 0,
                                             end_bit),
             "cub::DeviceRadixSort::SortPairs (temp size)");
  return bytes;
}

int sort_pairs(std::uint32_t* keys0, std::uint32_t* keys1, std::uint32_t* vals0, std::uint32_t* vals1,
               std::size_t entries, int end_bit, void* temp, std::size_t temp_bytes,
               cudaStream_t stream) {
  cub::DoubleBuffer<std::uint32_t> k(keys0, keys1), v(vals0, vals1);
  check_cuda(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, k, v, static_cast<int>(entries), 0,
                                             end_bit, stream),
             "cub::DeviceRadixSort::SortPairs");
  return k.selector;
}

void accumulate(const ChunkArgs<Xyzz32>& args, std::size_t chunks, unsigned min_blocks, cudaStream_t stream) {
  const unsigned g = grid_for(chunks);
  switch (min_blocks) {
    case 3: accumulate_kernel<3><<<g, kThreads, 0, stream>>>(args, chunks); break;
#if PROOFLAB_GPU_MSM_CAP_VARIANTS
    case 2: accumulate_kernel<2><<<g, kThreads, 0, stream>>>(args, chunks); break;
    case 4: accumulate_kernel<4><<<g, kThreads, 0, stream>>>(args, chunks); break;
#endif
    default:
      throw std::invalid_argument(
          "gpu msm: accumulate_min_blocks " + std::to_string(min_blocks) +
          (min_blocks == 2 || min_blocks == 4
               ? " is not in this build (configure with -DPROOFLAB_GPU_MSM_CAP_VARIANTS=ON)"
               : " must be 2, 3 or 4"));
  }
  check_launch("msm accumulate_kernel");
}

bool accumulate_min_blocks_built(unsigned min_blocks) {
  return min_blocks == 3 || (PROOFLAB_GPU_MSM_CAP_VARIANTS && (min_blocks == 2 || min_blocks == 4));
}

void group_heads(const ChunkArgs<Xyzz32>& args, std::size_t groups, cudaStream_t stream) {
  group_heads_kernel<<<grid_for_groups(groups), kThreads, 0, stream>>>(args, groups);
  check_launch("msm group_heads_kernel");
}

void fixup(const ChunkArgs<Xyzz32>& args, std::size_t chunks, cudaStream_t stream) {
  fixup_kernel<<<grid_for(chunks), kThreads, 0, stream>>>(args, chunks);
  check_launch("msm fixup_kernel");
}

void reduce(const ReduceArgs<Xyzz32>& args, std::size_t threads, cudaStream_t stream) {
  reduce_kernel<<<grid_for(threads), kThreads, 0, stream>>>(args, threads);
  check_launch("msm reduce_kernel");
}

void sum_points(const Xyzz32* in, std::size_t set_len, std::size_t per_block, std::size_t sets,
                Xyzz32* out, cudaStream_t stream) {
  const std::size_t per_set = (set_len + per_block - 1) / per_block;
  sum_points_kernel<<<static_cast<unsigned>(sets * per_set), kThreads, 0, stream>>>(in, set_len, per_block,
                                                                        static_cast<unsigned>(per_set), out);
  check_launch("msm sum_points_kernel");
}

void bitmap_sum(const Affine32* bases, const std::uint64_t* bitmap, std::size_t n, const std::uint32_t* ends,
                std::uint32_t share, std::uint32_t total, std::size_t threads, Xyzz32* out, cudaStream_t stream,
                const Affine32* table, std::uint32_t group) {
  switch (group) {
    case 1:
      bitmap_sum_kernel<1><<<grid_for(threads), kThreads, 0, stream>>>(bases, bitmap, n, ends, share, total, threads,
                                                                       out, nullptr);
      break;
    case 2:
      bitmap_sum_kernel<2><<<grid_for(threads), kThreads, 0, stream>>>(bases, bitmap, n, ends, share, total, threads,
                                                                       out, table);
      break;
    case 4:
      bitmap_sum_kernel<4><<<grid_for(threads), kThreads, 0, stream>>>(bases, bitmap, n, ends, share, total, threads,
                                                                       out, table);
      break;
    default: throw std::invalid_argument("gpu batch_add: group " + std::to_string(group) + " is not 1, 2 or 4");
  }
  check_launch("msm bitmap_sum_kernel");
}

void bitmap_counts(const std::uint64_t* bitmap, std::size_t n, std::uint32_t group, std::uint32_t* counts,
                   cudaStream_t stream) {
  const std::size_t words = (n + 63) / 64;
  bitmap_counts_kernel<<<static_cast<unsigned>((words + 255) / 256), 256, 0, stream>>>(bitmap, n, group, counts);
  check_launch("msm bitmap_counts_kernel");
}


}  // namespace prooflab::gpu::msm::kernels
