// Launching NTT passes on a stream, and the kernel that fills a pass table (both in
// ntt_kernel.cu).
#pragma once

#include <cuda_runtime.h>

#include <vector>

#include "gpu/ntt/plan.hpp"

namespace prooflab::gpu::ntt {

void launch_pass(const PassArgs& p, cudaStream_t stream);
void launch_passes(const std::vector<PassArgs>& passes, cudaStream_t stream);
// out[g] = pass_twiddle(partial, log_n, t, s, g) for g < 2^(log_n - t).
void launch_pass_table(const PowerTable& partial, unsigned log_n, unsigned t, unsigned s, Fr32* out,
                       cudaStream_t stream);

}  // namespace prooflab::gpu::ntt
