#include "gpu/r1cs/sparse_products.hpp"

#include <stdexcept>
#include <string>

#include "gpu/cuda_check.hpp"
#include "gpu/r1cs/sparse_products_kernel.hpp"

namespace prooflab::gpu::r1cs {

void sparse_products(const DeviceMatrices& m, const field::Fr32* witness, std::size_t num_inputs,
                     field::Fr32* a, field::Fr32* b, field::Fr32* c, std::size_t domain_size,
                     cudaStream_t stream) {
  const std::size_t rows = m.rows();
  if (num_inputs > m.columns() || domain_size < rows + num_inputs)
    throw std::invalid_argument("sparse_products: domain size " + std::to_string(domain_size) + " for " +
                                std::to_string(rows) + " constraints and " + std::to_string(num_inputs) +
                                " inputs (" + std::to_string(m.columns()) + " columns)");
  SparseProductsArgs args;
  for (int i = 0; i < 3; ++i) args.matrix[i] = m.view(i);
  args.witness = witness;
  args.out[0] = a;
  args.out[1] = b;
  args.out[2] = c;
  args.matrices = c ? 3 : 2;
  args.rows = rows;
  launch_sparse_products(args, stream);
  constexpr std::size_t kFr = sizeof(field::Fr32);
  if (num_inputs)
    check_cuda(cudaMemcpyAsync(a + rows, witness, num_inputs * kFr, cudaMemcpyDeviceToDevice, stream),
               "cudaMemcpyAsync(input rows)");
  const std::size_t a_tail = rows + num_inputs, tail = domain_size - rows;
  if (domain_size > a_tail)
    check_cuda(cudaMemsetAsync(a + a_tail, 0, (domain_size - a_tail) * kFr, stream), "cudaMemsetAsync(a)");
  if (tail) {
    check_cuda(cudaMemsetAsync(b + rows, 0, tail * kFr, stream), "cudaMemsetAsync(b)");
    if (c) check_cuda(cudaMemsetAsync(c + rows, 0, tail * kFr, stream), "cudaMemsetAsync(c)");
  }
}

}  // namespace prooflab::gpu::r1cs
