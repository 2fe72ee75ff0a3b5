#include "gpu/backend/device_witness.hpp"

#include "gpu/cuda_check.hpp"

namespace prooflab::gpu::engine {

static_assert(sizeof(field::Fr32) == sizeof(::prooflab::field::Fr), "one Montgomery layout on both sides");

memory::DeviceBuffer<field::Fr32> upload_witness(memory::DeviceAllocator& alloc, const prooflab::r1cs::Witness& w,
                                                 cudaStream_t stream, const char* stage) {
  memory::DeviceBuffer<field::Fr32> d(alloc, w.size(), stream, stage);
  constexpr std::size_t kFr = sizeof(field::Fr32);
  if (!w.input.empty())
    check_cuda(cudaMemcpyAsync(d.get(), w.input.data(), w.input.size() * kFr, cudaMemcpyHostToDevice, stream),
               "cudaMemcpyAsync(witness inputs)");
  if (!w.aux.empty())
    check_cuda(cudaMemcpyAsync(d.get() + w.input.size(), w.aux.data(), w.aux.size() * kFr,
                               cudaMemcpyHostToDevice, stream),
               "cudaMemcpyAsync(witness aux)");
  return d;
}

}  // namespace prooflab::gpu::engine
