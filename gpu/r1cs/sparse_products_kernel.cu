#include "gpu/cuda_check.hpp"
#include "gpu/r1cs/sparse_products_kernel.hpp"

namespace prooflab::gpu::r1cs {
namespace {

__global__ void __launch_bounds__(kSparseProductsThreads) sparse_products_kernel(SparseProductsArgs args) {
  const std::uint64_t row = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  sparse_products_row(args, blockIdx.y, row);
}

}  // namespace

void launch_sparse_products(const SparseProductsArgs& args, cudaStream_t stream) {
  if (args.rows == 0) return;
  const std::uint64_t blocks = (args.rows + kSparseProductsThreads - 1) / kSparseProductsThreads;
  sparse_products_kernel<<<dim3(static_cast<unsigned>(blocks), args.matrices), kSparseProductsThreads, 0, stream>>>(args);
  check_cuda(cudaGetLastError(), "sparse_products_kernel launch");
}

}  // namespace prooflab::gpu::r1cs
