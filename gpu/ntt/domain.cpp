#include "gpu/ntt/domain.hpp"

#include "gpu/cuda_check.hpp"
#include "gpu/ntt/tables.hpp"

namespace prooflab::gpu::ntt {

Domain::Domain(unsigned log_n, memory::DeviceAllocator& alloc, cudaStream_t stream) {
  const HostTables host = build_tables(log_n);
  buffer_ = memory::DeviceBuffer<Fr32>(alloc, host.data.size(), stream, "ntt_tables");
  check_cuda(cudaMemcpyAsync(buffer_.get(), host.data.data(), host.data.size() * sizeof(Fr32),
                             cudaMemcpyHostToDevice, stream),
             "cudaMemcpyAsync(ntt tables)");
  // The host copy dies with this function: wait for the upload.
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize(ntt tables)");
  view_ = host.view(buffer_.get());
}

}  // namespace prooflab::gpu::ntt
