// Launching NTT passes on a stream (the kernel is in ntt_kernel.cu).
#pragma once

#include <cuda_runtime.h>

#include <vector>

#include "gpu/ntt/plan.hpp"

namespace prooflab::gpu::ntt {

void launch_pass(const PassArgs& p, cudaStream_t stream);
void launch_passes(const std::vector<PassArgs>& passes, cudaStream_t stream);

}  // namespace prooflab::gpu::ntt
