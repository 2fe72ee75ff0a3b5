// The variables of the A and B queries' bases (groth16::query_variables: prep_msm's selection
// by the densities) resident on one device (prep_msm = gpu): uploaded once per device and
// system by the CUDA backend beside the matrices and kept while that system is proved, 4 bytes
// a base of A and of B (~2 × 16 MiB at 2^22), through the device's budgeted allocator. C++20.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "core/groth16/keys.hpp"
#include "core/r1cs/r1cs.hpp"
#include "gpu/memory/device_allocator.hpp"
#include "gpu/msm_plan/query_words.cuh"

namespace prooflab::gpu::msm_plan {

class DeviceQueryVariables {
 public:
  // Computes them on the host, uploads them on `stream` and waits for the copies. Throws as
  // groth16::query_variables when the densities do not match pk, memory::DeviceOutOfMemory
  // (naming `stage`) over the budget.
  DeviceQueryVariables(memory::DeviceAllocator& alloc, const groth16::ProvingKey& pk,
                       const prooflab::r1cs::R1cs& cs, cudaStream_t stream, const char* stage);

  // Whether these are cs's (the same object and shape; the key's A and B sizes follow it).
  bool holds(const prooflab::r1cs::R1cs& cs) const;
  std::uint64_t bytes() const { return a_.bytes() + b_.bytes(); }

  // The views of L, A and B (B_G1 and B_G2 share B's) over a device witness [inputs..., aux...].
  QueryView l(const field::Fr32* witness) const;
  QueryView a(const field::Fr32* witness) const;
  QueryView b(const field::Fr32* witness) const;

 private:
  const prooflab::r1cs::R1cs* cs_ = nullptr;
  std::size_t num_inputs_ = 0, num_aux_ = 0;
  memory::DeviceBuffer<std::uint32_t> a_, b_;
};

}  // namespace prooflab::gpu::msm_plan
