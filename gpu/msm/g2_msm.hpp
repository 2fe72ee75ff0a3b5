// G2 multi-scalar multiplication and batch addition on the device (issue 24): the G1 MSM's
// Pippenger (msm.hpp, docs/gpu.md "MSM") with G2 buckets — the same phases, instantiated over
// Fp2 (pippenger.cuh, xyzz.cuh, msm_g2_kernels.cu). Groth16 needs it for the B query in G2
// (the engine's b_g2_msm with `b_g2_msm = gpu`).
//
// C++17-clean (the .cu benchmark includes it). Points use core's byte layout: G2AffineRaw is
// curve::G2Affine (x, y in Fp2 = c0, c1 in Montgomery form, (0, 0) = infinity), G2XyzzRaw is
// curve::Xyzz<G2Curve>; scalars as msm::Scalar. gpu/msm/msm_host.hpp converts.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "gpu/memory/device_allocator.hpp"
#include "gpu/msm/msm.hpp"

namespace prooflab::gpu::msm {

struct G2AffineRaw {
  std::uint32_t x[24], y[24];
};
struct G2XyzzRaw {
  std::uint32_t x[24], y[24], zz[24], zzz[24];
};
static_assert(sizeof(G2AffineRaw) == 192 && sizeof(G2XyzzRaw) == 384, "core's G2 layouts");

// Device bytes one G2 call for n points needs beyond bases and scalars.
std::size_t g2_scratch_bytes(std::size_t n, const MsmOptions& opts = {});

// Σ scalars[i]·bases[d_index ? d_index[i] : i] for i < n over device-resident points and
// scalars. opts.accumulate_min_blocks: 0 or 2 (the only G2 build). Scratch from `alloc` under
// `stage`; synchronises `stream` to return the sum.
G2XyzzRaw g2_run_indexed(memory::DeviceAllocator& alloc, const G2AffineRaw* d_bases,
                         const std::uint32_t* d_index, const std::uint32_t* d_scalars,
                         std::size_t n, cudaStream_t stream, const MsmOptions& opts = {},
                         const char* stage = "g2_msm", MsmShape* shape = nullptr);

// Σ bases[i] over the bits set in d_bitmap (n bits): the batch addition of the scalars equal
// to one. Synchronises `stream`.
G2XyzzRaw g2_sum_selected(memory::DeviceAllocator& alloc, const G2AffineRaw* d_bases,
                          const std::uint64_t* d_bitmap, std::size_t n, cudaStream_t stream,
                          const char* stage = "g2_batch_add");

}  // namespace prooflab::gpu::msm
