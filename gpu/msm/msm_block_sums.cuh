// The block-level bodies of the two summing kernels, generic over the bucket type so the G1
// kernels (msm_kernels.cu) and the G2 ones (msm_g2_kernels.cu) share them; each .cu keeps
// its own kernel names (CUPTI rows and `prooflab gpu-phase` name kernels: a G2 kernel must
// not read as a G1 one). Device code only (__syncthreads).
#pragma once

#include <cstddef>
#include <cstdint>

#include "gpu/msm/pippenger.cuh"

namespace prooflab::gpu::msm::kernels {

// sh[0] = Σ sh[0, width), width a power of two, summed in a tree by the `width` threads i of
// a block or warp, with barrier() (__syncthreads or __syncwarp) after each level.
template <class Bucket, class Barrier>
__device__ __forceinline__ void tree_sum(Bucket* sh, unsigned i, unsigned width, Barrier barrier) {
  for (unsigned s = width / 2; s > 0; s >>= 1) {
    if (i < s) {
      Bucket v = sh[i];
      v.add(sh[i + s]);
      sh[i] = v;
    }
    barrier();
  }
}

// Block b = set·blocks_per_set + part of a round: out[b] = Σ of the set's points
// [part·per_block, min(set_len, (part+1)·per_block)) in `in` (the sets' points one after the
// other, set_len each): a strided sum per thread, then a tree in `sh` (kThreads buckets of
// shared memory) only as wide as the points need (a last round's few points: fewer levels,
// each a dependent full addition).
template <class Bucket>
__device__ __forceinline__ void sum_points_block(Bucket* sh, const Bucket* in, std::size_t set_len,
                                                 std::size_t per_block, unsigned blocks_per_set, Bucket* out) {
  const std::size_t set = blockIdx.x / blocks_per_set, part = blockIdx.x % blocks_per_set;
  const std::size_t begin = set * set_len + part * per_block;
  const std::size_t len = per_block < set_len - part * per_block ? per_block : set_len - part * per_block;
  Bucket acc = Bucket::infinity();
  for (std::size_t i = threadIdx.x; i < len; i += kThreads) acc.add(in[begin + i]);
  sh[threadIdx.x] = acc;
  __syncthreads();
  unsigned width = 1;
  while (width < kThreads && width < len) width <<= 1;
  tree_sum(sh, threadIdx.x, width, [] { __syncthreads(); });
  if (threadIdx.x == 0) out[blockIdx.x] = sh[0];
}

// Phase 4a on the device, one warp per group of kFixupGroup (= 32) chunks: lane l loads the
// head of chunk 32g + l and the warp adds them in a tree in `sh` (kThreads buckets of shared
// memory, 32 per warp): 5 dependent additions instead of group_heads' 31 on one thread (each a
// ~15 µs chain: the tails' group heads took ~1.1 ms at 2^24). The same sum as group_heads
// (pippenger.cuh), which the host simulator runs: addition is the group's.
template <class Bucket>
__device__ __forceinline__ void group_heads_warp(Bucket* sh, const ChunkArgs<Bucket>& a, std::size_t groups) {
  static_assert(kFixupGroup == 32 && kThreads % 32 == 0, "one warp per group of 32 chunks");
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const std::size_t g = blockIdx.x * std::size_t{kThreads / 32} + warp;
  if (g >= groups || !group_inside_run(a, g)) return;  // the same for the whole warp
  Bucket* w = sh + 32 * warp;
  w[lane] = a.heads[g * kFixupGroup + lane];
  __syncwarp();
  tree_sum(w, lane, 32, [] { __syncwarp(); });
  if (lane == 0) a.group_sums[g] = w[0];
}

// Blocks of kThreads for one warp per group.
inline unsigned grid_for_groups(std::size_t groups) {
  constexpr std::size_t kPerBlock = kThreads / 32;
  return static_cast<unsigned>((groups + kPerBlock - 1) / kPerBlock);
}

// out[t] = Σ of the selected units number [t·share, min((t+1)·share, total)) (sum_selected_share;
// kGroup 2 or 4: over a group table).
template <class Bucket, std::uint32_t kGroup = 1>
__device__ __forceinline__ void bitmap_share_thread(const typename Bucket::Affine* bases, const std::uint64_t* bitmap,
                                                    std::size_t n, const std::uint32_t* ends,
                                                    std::uint32_t share, std::uint32_t total,
                                                    std::size_t threads, Bucket* out,
                                                    const typename Bucket::Affine* table = nullptr) {
  const std::size_t t = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (t >= threads) return;
  const std::uint64_t begin = t * std::uint64_t{share}, end = begin + share < total ? begin + share : total;
  out[t] = sum_selected_share<Bucket, kGroup>(bases, bitmap, n, ends, (n + 63) / 64,
                                              static_cast<std::uint32_t>(begin), static_cast<std::uint32_t>(end),
                                              table);
}

inline unsigned grid_for(std::size_t threads) {
  return static_cast<unsigned>((threads + kThreads - 1) / kThreads);
}

}  // namespace prooflab::gpu::msm::kernels
