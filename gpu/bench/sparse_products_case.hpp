// The sparse_products rows of prooflab_gpu_bench: a porep-like partition made with core/ on
// the host (the benchmark's .cu is C++17 and cannot include core), its matrices resident on
// the device and its witness uploaded as the CUDA backend does for sparse_products = gpu,
// and the host's r1cs::evaluate_all of the same partition on the host's threads for the
// comparison and the check. C++17-clean.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <memory>

#include "gpu/memory/device_allocator.hpp"

namespace prooflab::gpu::bench {

class SparseProductsCase {
 public:
  // A porep-like partition of about `constraints` constraints (seeded), made and uploaded.
  SparseProductsCase(std::uint64_t constraints, memory::DeviceAllocator& alloc, cudaStream_t stream);
  ~SparseProductsCase();
  SparseProductsCase(const SparseProductsCase&) = delete;
  SparseProductsCase& operator=(const SparseProductsCase&) = delete;

  unsigned log_domain() const;
  std::uint64_t nonzeros() const;       // of A, B and C together
  std::uint64_t matrix_bytes() const;   // resident on the device
  std::uint64_t witness_bytes() const;  // uploaded per partition
  // Queues the witness's upload (pageable host memory, as the backend's stage) / the products
  // into the QAP layout on `stream` (the timed calls).
  void upload_witness(cudaStream_t stream);
  void products(cudaStream_t stream);
  // Page-locks the witness's aux vector in place (cudaHostRegister: what a stage that pinned
  // it before the GPU lock would pay) / undoes it (cudaHostUnregister); each returns its own
  // time in ms. While pinned, upload_witness copies from page-locked memory.
  double pin_witness();
  double unpin_witness();
  // evaluate_all into the domain's length on the host's threads (bench::host_pool), one
  // sample, in ms; then whether the device's a, b, c equal it.
  double host_products_ms();
  bool device_equals_host();

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace prooflab::gpu::bench
