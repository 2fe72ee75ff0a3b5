// prep_msm on the device (engine knob prep_msm = gpu, issue 24): a query's plan — what
// core's groth16::QueryPlan holds on the host — made from the witness on the device and left
// there for the batch additions (the ones bitmap) and the tail MSMs (positions into the
// resident query and canonical scalars), equal bit for bit to the CPU's (query_words.cuh:
// the same classification rule, the same order). docs/gpu.md, "prep_msm on the device".
// C++17-clean (the .cu benchmark includes it).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "gpu/field/fields.cuh"
#include "gpu/memory/device_allocator.hpp"
#include "gpu/msm_plan/query_words.cuh"

namespace prooflab::gpu::msm_plan {

struct DeviceQueryPlan {
  memory::DeviceBuffer<std::uint64_t> ones;        // (size + 63) / 64 words: QueryPlan::ones
  memory::DeviceBuffer<std::uint32_t> tail_index;  // num_tails positions, ascending
  memory::DeviceBuffer<field::Fr32> tail_scalars;  // canonical: msm::Scalar's layout
  std::size_t size = 0, zeros = 0, num_ones = 0, num_tails = 0;

  std::uint64_t bytes() const { return ones.bytes() + tail_index.bytes() + tail_scalars.bytes(); }
  // The buffers are freed on `s` (the last stream that used them) when the plan goes.
  void set_stream(cudaStream_t s) {
    ones.set_stream(s);
    tail_index.set_stream(s);
    tail_scalars.set_stream(s);
  }
};

// The plans of queries[0, count) into out[0, count), all queued on `stream`: every query's
// classification and count scans, then one download of the counts (the host sizes the tails'
// buffers and the MSMs by them: 8 bytes a query) and one synchronisation, then the tails
// scattered into buffers of exactly their size. Returns with the scatter still queued on
// `stream`; the pass's scratch (five 32-bit words per 32 positions plus CUB's) is freed in
// stream order. Device memory from `alloc` under `stage` (DeviceOutOfMemory names it).
void make_device_plans(memory::DeviceAllocator& alloc, const QueryView* queries, std::size_t count,
                       DeviceQueryPlan* out, cudaStream_t stream, const char* stage);

}  // namespace prooflab::gpu::msm_plan
