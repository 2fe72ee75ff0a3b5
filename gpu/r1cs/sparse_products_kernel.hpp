// The launch of the sparse-products kernel (sparse_products_kernel.cu): one thread per row of
// each of the three matrices (grid.y selects the matrix). C++17-clean.
#pragma once

#include <cuda_runtime.h>

#include "gpu/r1cs/sparse_row.cuh"

namespace prooflab::gpu::r1cs {

constexpr unsigned kSparseProductsThreads = 256;

// Queues the kernel on `stream`; checks the launch (CudaError naming it).
void launch_sparse_products(const SparseProductsArgs& args, cudaStream_t stream);

}  // namespace prooflab::gpu::r1cs
