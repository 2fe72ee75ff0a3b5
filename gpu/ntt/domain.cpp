#include "gpu/ntt/domain.hpp"

#include "gpu/cuda_check.hpp"
#include "gpu/ntt/ntt_kernel.hpp"
#include "gpu/ntt/tables.hpp"

namespace prooflab::gpu::ntt {

std::size_t Domain::bytes_for(unsigned log_n) {
  return (table_elements(log_n) + 2 * pass_table_entries(log_n)) * sizeof(Fr32);
}

Domain::Domain(unsigned log_n, memory::DeviceAllocator& alloc, cudaStream_t stream) {
  const HostTables host = build_tables(log_n);
  buffer_ = memory::DeviceBuffer<Fr32>(alloc, host.data.size() + 2 * pass_table_entries(log_n), stream,
                                       "ntt_tables");
  check_cuda(cudaMemcpyAsync(buffer_.get(), host.data.data(), host.data.size() * sizeof(Fr32),
                             cudaMemcpyHostToDevice, stream),
             "cudaMemcpyAsync(ntt tables)");
  view_ = host.view(buffer_.get());
  // The pass tables: computed on the device from the uploaded two-level tables.
  Fr32* next = buffer_.get() + host.data.size();
  const auto shapes = pass_table_shapes(log_n);
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const std::size_t size = std::size_t{1} << (log_n - shapes[i].t);
    launch_pass_table(view_.partial_fwd, log_n, shapes[i].t, shapes[i].s, next, stream);
    launch_pass_table(view_.partial_inv, log_n, shapes[i].t, shapes[i].s, next + size, stream);
    view_.pass_tables[i] = {next, next + size, shapes[i].t, shapes[i].s};
    next += 2 * size;
  }
  // The host copy dies with this function: wait for the upload.
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize(ntt tables)");
}

}  // namespace prooflab::gpu::ntt
