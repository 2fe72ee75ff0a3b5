// Launchers of the MSM phases (pippenger.cuh) on a stream; msm.cpp sequences them. C++17.
// Phases 3-6 come in a G1 overload (msm_kernels.cu) and a G2 one (msm_g2_kernels.cu).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "gpu/msm/pippenger.cuh"

namespace prooflab::gpu::msm::kernels {

// make_digits for scalars [0, n); stride: the fixed-base table's points (n for a whole call).
void digits(const DigitPlan& plan, const std::uint32_t* scalars, std::size_t n, std::size_t stride,
            std::uint32_t* keys, std::uint32_t* vals, cudaStream_t stream);

// Device scratch bytes the radix sort of `entries` pairs needs.
std::size_t sort_temp_bytes(std::size_t entries, int end_bit);
// Sorts (keys, vals) by key bits [0, end_bit) between the two buffers of each pair; returns
// 0 when the result is in keys0/vals0, 1 when in keys1/vals1.
int sort_pairs(std::uint32_t* keys0, std::uint32_t* keys1, std::uint32_t* vals0, std::uint32_t* vals1,
               std::size_t entries, int end_bit, void* temp, std::size_t temp_bytes,
               cudaStream_t stream);

// Phase 0: buckets [0, count) at infinity (pippenger.cuh clear_bucket).
void clear_buckets(Xyzz32* buckets, std::size_t count, cudaStream_t stream);
void clear_buckets(G2Xyzz32* buckets, std::size_t count, cudaStream_t stream);

// min_blocks: resident 128-thread blocks per SM the compiler must allow (G1: 3, and 2 or 4
// where accumulate_min_blocks_built says so; G2, whose bucket alone is 96 registers: 2).
void accumulate(const ChunkArgs<Xyzz32>& args, std::size_t chunks, unsigned min_blocks, cudaStream_t stream);
// Whether the G1 accumulation exists with this register cap: 3 always, 2 and 4 in a build
// with -DPROOFLAB_GPU_MSM_CAP_VARIANTS=ON (the device binaries: gpu/scripts/stage_device_bins.sh).
bool accumulate_min_blocks_built(unsigned min_blocks);
// Phase 4a: each group's head sum, one warp per group of kFixupGroup chunks adding them in a
// tree (msm_block_sums.cuh group_heads_warp; the simulator runs pippenger.cuh group_heads).
void group_heads(const ChunkArgs<Xyzz32>& args, std::size_t groups, cudaStream_t stream);
void fixup(const ChunkArgs<Xyzz32>& args, std::size_t chunks, cudaStream_t stream);
void reduce(const ReduceArgs<Xyzz32>& args, std::size_t threads, cudaStream_t stream);
// One round of sums over `sets` sets of set_len > 0 points each (in one after the other):
// out[w·P + k] = Σ of set w's points [k·per_block, min(set_len, (k+1)·per_block)) for k < P =
// ceil(set_len / per_block).
void sum_points(const Xyzz32* in, std::size_t set_len, std::size_t per_block, std::size_t sets,
                Xyzz32* out, cudaStream_t stream);
// The batch addition in equal shares (pippenger.cuh sum_selected_share): counts[w] = the units
// of word w below n (bits, or with `group` 2 or 4 groups of bits with any set: selected_units);
// ends = their inclusive prefix sums (gpu/prefix_sum.hpp); out[t] = Σ of the selected units
// number [t·share, min((t+1)·share, total)); table: the group table of `group` (G1 only; group
// 1: none, table ignored; another group: std::invalid_argument).
void bitmap_counts(const std::uint64_t* bitmap, std::size_t n, std::uint32_t group, std::uint32_t* counts,
                   cudaStream_t stream);
void bitmap_sum(const Affine32* bases, const std::uint64_t* bitmap, std::size_t n, const std::uint32_t* ends,
                std::uint32_t share, std::uint32_t total, std::size_t threads, Xyzz32* out, cudaStream_t stream,
                const Affine32* table, std::uint32_t group);

void accumulate(const ChunkArgs<G2Xyzz32>& args, std::size_t chunks, unsigned min_blocks,
                cudaStream_t stream);
void group_heads(const ChunkArgs<G2Xyzz32>& args, std::size_t groups, cudaStream_t stream);
void fixup(const ChunkArgs<G2Xyzz32>& args, std::size_t chunks, cudaStream_t stream);
void reduce(const ReduceArgs<G2Xyzz32>& args, std::size_t threads, cudaStream_t stream);
void sum_points(const G2Xyzz32* in, std::size_t set_len, std::size_t per_block, std::size_t sets,
                G2Xyzz32* out, cudaStream_t stream);
// group must be 1: G2 has no group table (std::invalid_argument otherwise).
void bitmap_sum(const G2Affine32* bases, const std::uint64_t* bitmap, std::size_t n, const std::uint32_t* ends,
                std::uint32_t share, std::uint32_t total, std::size_t threads, G2Xyzz32* out, cudaStream_t stream,
                const G2Affine32* table, std::uint32_t group);

}  // namespace prooflab::gpu::msm::kernels
