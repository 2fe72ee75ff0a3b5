// The launch of the coset-values kernel (coset_values_kernel.cu): out[i] = h_coset_value(a[i],
// b[i], c[i]) for i < n, one thread per element. C++17-clean.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "gpu/field/fields.cuh"

namespace prooflab::gpu::ntt {

// Queues the kernel on `stream`; out may be a (in place), c null (a·b alone). Checks the launch
// (CudaError naming it).
void launch_h_coset_values(const field::Fr32* a, const field::Fr32* b, const field::Fr32* c,
                           field::Fr32* out, std::size_t n, bool canonical_output, cudaStream_t stream);

}  // namespace prooflab::gpu::ntt
