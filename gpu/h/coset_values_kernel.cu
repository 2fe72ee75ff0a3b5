#include "gpu/cuda_check.hpp"
#include "gpu/h/coset_values.cuh"
#include "gpu/h/coset_values_kernel.hpp"

namespace prooflab::gpu::ntt {
namespace {

constexpr unsigned kThreads = 256;

__global__ void __launch_bounds__(kThreads)
    h_coset_values_kernel(const field::Fr32* a, const field::Fr32* b, const field::Fr32* c,
                          field::Fr32* out, std::size_t n, bool canonical_output) {
  const std::size_t i = std::size_t{blockIdx.x} * kThreads + threadIdx.x;
  if (i < n) out[i] = c ? h_coset_value(a[i], b[i], c[i], canonical_output) : h_coset_value(a[i], b[i], canonical_output);
}

}  // namespace

void launch_h_coset_values(const field::Fr32* a, const field::Fr32* b, const field::Fr32* c,
                           field::Fr32* out, std::size_t n, bool canonical_output, cudaStream_t stream) {
  if (n == 0) return;
  const std::size_t blocks = (n + kThreads - 1) / kThreads;
  h_coset_values_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(a, b, c, out, n,
                                                                                 canonical_output);
  check_cuda(cudaGetLastError(), "h_coset_values_kernel launch");
}

}  // namespace prooflab::gpu::ntt
