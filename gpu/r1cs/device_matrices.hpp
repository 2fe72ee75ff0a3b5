// A constraint system's matrices A, B, C resident on one device (sparse_products = gpu):
// uploaded once per device and system by the CUDA backend and kept while that system is
// proved, through the device's budgeted allocator, so their VRAM counts against vram_limit.
// Their size is CsrMatrix::bytes() summed: 8 B per row offset, 8 B per nonzero, 32 B per
// table entry — ~75 B per constraint for porep-like (docs/circuits.md): ~0.3 GiB at 2^22,
// ~1.2 GiB at 2^24, ~9.4 GiB at 2^27 (docs/gpu.md, "Sparse products").
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "core/r1cs/r1cs.hpp"
#include "gpu/memory/device_allocator.hpp"
#include "gpu/r1cs/sparse_row.cuh"

namespace prooflab::gpu::r1cs {

class DeviceMatrices {
 public:
  // Uploads cs.a, cs.b, cs.c on `stream` and waits for the copies. Throws
  // memory::DeviceOutOfMemory (naming `stage`) when they exceed the budget, and
  // std::invalid_argument when the three matrices differ in rows or columns.
  DeviceMatrices(memory::DeviceAllocator& alloc, const prooflab::r1cs::R1cs& cs, cudaStream_t stream,
                 const char* stage);

  // Whether these are cs's matrices: the same object with the same shape (a system freed and
  // another compiled at its address is not mistaken for it unless their sizes all agree).
  bool holds(const prooflab::r1cs::R1cs& cs) const;
  const CsrView& view(int i) const { return views_[i]; }
  std::size_t rows() const { return rows_; }
  std::size_t columns() const { return cols_; }
  std::uint64_t bytes() const { return bytes_; }
  // Bytes cs's matrices take on a device.
  static std::uint64_t bytes_of(const prooflab::r1cs::R1cs& cs);

 private:
  struct Matrix {
    memory::DeviceBuffer<std::uint64_t> row_ptr;
    memory::DeviceBuffer<std::uint32_t> cols, coeff_ids;
    memory::DeviceBuffer<field::Fr32> coeffs;
  };
  const prooflab::r1cs::R1cs* cs_ = nullptr;
  std::size_t rows_ = 0, cols_ = 0, nnz_[3] = {0, 0, 0};
  std::uint64_t bytes_ = 0;
  Matrix m_[3];
  CsrView views_[3];
};

}  // namespace prooflab::gpu::r1cs
