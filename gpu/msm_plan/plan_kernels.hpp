// The launches of prep_msm's device passes (plan_kernels.cu): the classification of every
// 32-bit word of a query, the sum of its counts (CUB) and the scatter of its tails; one
// thread per word in both passes (query_words.cuh has what each thread does). C++17-clean.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "gpu/msm_plan/query_words.cuh"

namespace prooflab::gpu::msm_plan {

constexpr unsigned kPlanThreads = 256;

// Queue on `stream`; check the launch (CudaError naming the kernel).
void launch_classify_words(const ClassifyArgs& args, cudaStream_t stream);
void launch_scatter_tails(const ScatterArgs& args, cudaStream_t stream);

// CUB's device-wide sum of `count` words (the inclusive sum: gpu/prefix_sum.hpp):
// sum_temp_bytes asks for the scratch, then the call with it queues the work on `stream`.
std::size_t sum_temp_bytes(std::size_t count);
void sum(const std::uint32_t* in, std::uint32_t* out, std::size_t count, void* temp,
         std::size_t temp_bytes, cudaStream_t stream);

}  // namespace prooflab::gpu::msm_plan
