#include "gpu/h/h_host.hpp"

#include <stdexcept>
#include <string>

#include "gpu/cuda_check.hpp"
#include "gpu/ntt/domain.hpp"

namespace prooflab::gpu::ntt {

static_assert(sizeof(::prooflab::field::Fr) == sizeof(Fr32), "CPU and device Fr share one layout");
static_assert(sizeof(msm::Scalar) == sizeof(Fr32), "a canonical scalar is 32 bytes");

Fr32* upload(const std::vector<::prooflab::field::Fr>& host, Fr32* device, cudaStream_t stream) {
  check_cuda(cudaMemcpyAsync(device, host.data(), host.size() * sizeof(Fr32),
                             cudaMemcpyHostToDevice, stream),
             "cudaMemcpyAsync(upload)");
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize(upload)");
  return device;
}

std::vector<::prooflab::field::Fr> download(const Fr32* device, std::size_t n, cudaStream_t stream) {
  std::vector<::prooflab::field::Fr> host(n);
  check_cuda(cudaMemcpyAsync(host.data(), device, n * sizeof(Fr32), cudaMemcpyDeviceToHost, stream),
             "cudaMemcpyAsync(download)");
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize(download)");
  return host;
}

std::vector<msm::Scalar> compute_h_from_host(const std::vector<::prooflab::field::Fr>& a,
                                             const std::vector<::prooflab::field::Fr>& b,
                                             const std::vector<::prooflab::field::Fr>& c,
                                             memory::DeviceAllocator& alloc, cudaStream_t stream,
                                             const HOptions& opt) {
  const std::size_t n = a.size();
  if (n < 2 || (n & (n - 1)) || b.size() != n || (c.size() != n && !(opt.coset_values && c.empty())))
    throw std::invalid_argument("gpu compute_h: a, b, c must have one power-of-two size >= 2 (got " +
                                std::to_string(a.size()) + ", " + std::to_string(b.size()) + ", " +
                                std::to_string(c.size()) + ")");
  unsigned log_n = 0;
  while ((std::size_t{1} << log_n) < n) ++log_n;
  const Domain d(log_n, alloc, stream);
  memory::DeviceBuffer<Fr32> da(alloc, n, stream, "h_inputs"), db(alloc, n, stream, "h_inputs"),
      dc(alloc, c.empty() ? 0 : n, stream, "h_inputs");
  upload(a, da.get(), stream);
  upload(b, db.get(), stream);
  if (!c.empty()) upload(c, dc.get(), stream);
  HComputer hc(alloc);
  hc.compute(da.get(), db.get(), c.empty() ? nullptr : dc.get(), d, stream, opt);
  std::vector<msm::Scalar> h(opt.coset_values ? n : n - 1);
  check_cuda(cudaMemcpyAsync(h.data(), da.get(), h.size() * sizeof(Fr32), cudaMemcpyDeviceToHost,
                             stream),
             "cudaMemcpyAsync(h download)");
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize(h download)");
  return h;
}

}  // namespace prooflab::gpu::ntt
