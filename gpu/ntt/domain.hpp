// The device side of one NTT size: all its tables (tables.hpp) in one allocation from the
// budgeted allocator. Build one per size and keep it; the transforms only read it.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "gpu/memory/device_allocator.hpp"
#include "gpu/ntt/plan.hpp"

namespace prooflab::gpu::ntt {

class Domain {
 public:
  // Computes the tables on the host and uploads them on `stream`, then builds on the device
  // the pass tables pass_table_shapes(log_n) names; returns once they are on the device. Throws std::invalid_argument for log_n outside [1, 27],
  // DeviceOutOfMemory (stage ntt_tables), CudaError.
  Domain(unsigned log_n, memory::DeviceAllocator& alloc, cudaStream_t stream);

  // The device bytes a Domain of 2^log_n takes (table_bytes() of it, before it exists).
  static std::size_t bytes_for(unsigned log_n);

  unsigned log_size() const { return view_.log_n; }
  std::size_t size() const { return std::size_t{1} << view_.log_n; }
  const TablesView& tables() const { return view_; }
  std::size_t table_bytes() const { return buffer_.bytes(); }

 private:
  memory::DeviceBuffer<Fr32> buffer_;
  TablesView view_;
};

}  // namespace prooflab::gpu::ntt
