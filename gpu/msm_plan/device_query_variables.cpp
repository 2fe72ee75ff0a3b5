#include "gpu/msm_plan/device_query_variables.hpp"

#include <vector>

#include "core/groth16/prover.hpp"
#include "gpu/cuda_check.hpp"

namespace prooflab::gpu::msm_plan {
namespace {

memory::DeviceBuffer<std::uint32_t> upload(memory::DeviceAllocator& alloc, const std::vector<std::uint32_t>& v,
                                           cudaStream_t stream, const char* stage) {
  memory::DeviceBuffer<std::uint32_t> d(alloc, v.size(), stream, stage);
  if (!v.empty())
    check_cuda(cudaMemcpyAsync(d.get(), v.data(), v.size() * sizeof(std::uint32_t), cudaMemcpyHostToDevice, stream),
               "cudaMemcpyAsync(query variables)");
  return d;
}

}  // namespace

DeviceQueryVariables::DeviceQueryVariables(memory::DeviceAllocator& alloc, const groth16::ProvingKey& pk,
                                           const prooflab::r1cs::R1cs& cs, cudaStream_t stream,
                                           const char* stage)
    : cs_(&cs), num_inputs_(cs.num_inputs), num_aux_(cs.num_aux) {
  const groth16::QueryVariables vars = groth16::query_variables(pk, cs);
  a_ = upload(alloc, vars.a, stream, stage);
  b_ = upload(alloc, vars.b, stream, stage);
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize(query variables)");
}

bool DeviceQueryVariables::holds(const prooflab::r1cs::R1cs& cs) const {
  return cs_ == &cs && num_inputs_ == cs.num_inputs && num_aux_ == cs.num_aux;
}

QueryView DeviceQueryVariables::l(const field::Fr32* witness) const {
  QueryView q;
  q.witness = witness;
  q.first_var = static_cast<std::uint32_t>(num_inputs_);
  q.size = num_aux_;
  return q;
}

QueryView DeviceQueryVariables::a(const field::Fr32* witness) const {
  QueryView q;
  q.witness = witness;
  q.vars = a_.get();
  q.size = a_.size();
  return q;
}

QueryView DeviceQueryVariables::b(const field::Fr32* witness) const {
  QueryView q;
  q.witness = witness;
  q.vars = b_.get();
  q.size = b_.size();
  return q;
}

}  // namespace prooflab::gpu::msm_plan
