// A partition's witness on the device: [inputs..., aux...] in Montgomery form, the columns'
// order of core/r1cs's matrices (sparse_products = gpu reads it; the upload is its own
// function so that other device stages that need the witness share it).
#pragma once

#include <cuda_runtime.h>

#include "core/r1cs/witness.hpp"
#include "gpu/field/fields.cuh"
#include "gpu/memory/device_allocator.hpp"

namespace prooflab::gpu::engine {

// Allocates w.size() elements on `stream` (memory::DeviceOutOfMemory naming `stage` over
// the budget) and queues the copies of w.input and w.aux behind each other. The host
// vectors must stay until `stream` has reached the copies (the caller synchronises).
memory::DeviceBuffer<field::Fr32> upload_witness(memory::DeviceAllocator& alloc, const prooflab::r1cs::Witness& w,
                                                 cudaStream_t stream, const char* stage);

}  // namespace prooflab::gpu::engine
