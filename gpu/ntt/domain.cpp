#include "gpu/ntt/domain.hpp"

#include "gpu/cuda_check.hpp"
#include "gpu/ntt/ntt_kernel.hpp"
#include "gpu/ntt/tables.hpp"

namespace prooflab::gpu::ntt {

std::size_t Domain::bytes_for(unsigned log_n) {
  const std::size_t first = first_pass_table_stages(log_n) ? std::size_t{2} << log_n : 0;
  return (table_elements(log_n) + first) * sizeof(Fr32);
}

Domain::Domain(unsigned log_n, memory::DeviceAllocator& alloc, cudaStream_t stream) {
  const HostTables host = build_tables(log_n);
  const unsigned first_s = first_pass_table_stages(log_n);
  const std::size_t n = std::size_t{1} << log_n;
  buffer_ = memory::DeviceBuffer<Fr32>(alloc, host.data.size() + (first_s ? 2 * n : 0), stream,
                                       "ntt_tables");
  check_cuda(cudaMemcpyAsync(buffer_.get(), host.data.data(), host.data.size() * sizeof(Fr32),
                             cudaMemcpyHostToDevice, stream),
             "cudaMemcpyAsync(ntt tables)");
  view_ = host.view(buffer_.get());
  if (first_s) {  // computed on the device from the uploaded two-level tables
    Fr32* fwd = buffer_.get() + host.data.size();
    launch_first_pass_table(view_.partial_fwd, log_n, first_s, fwd, stream);
    launch_first_pass_table(view_.partial_inv, log_n, first_s, fwd + n, stream);
    view_.first_pass = {fwd, fwd + n, first_s};
  }
  // The host copy dies with this function: wait for the upload.
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize(ntt tables)");
}

}  // namespace prooflab::gpu::ntt
