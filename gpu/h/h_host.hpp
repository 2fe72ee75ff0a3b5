// Convenience around HComputer for host data (tests, small tools): uploads a, b, c, computes
// H on the device and copies h back in core's types. C++20 (uses core/field); the engine
// itself keeps a, b, c and h on the device and calls HComputer directly.
#pragma once

#include <cuda_runtime.h>

#include <vector>

#include "core/field/fr.hpp"
#include "core/msm/msm.hpp"
#include "gpu/memory/device_allocator.hpp"
#include "gpu/h/h.hpp"

namespace prooflab::gpu::ntt {

// The device counterpart of groth16::compute_h: the same n - 1 canonical coefficients (with
// opt.coset_values, of compute_h_on_coset: the n values at the coset points; c empty: a·b).
// a, b, c must all have the same power-of-two size n (2 <= n <= 2^27).
std::vector<msm::Scalar> compute_h_from_host(const std::vector<::prooflab::field::Fr>& a,
                                             const std::vector<::prooflab::field::Fr>& b,
                                             const std::vector<::prooflab::field::Fr>& c,
                                             memory::DeviceAllocator& alloc, cudaStream_t stream,
                                             const HOptions& opt = {});

// Device array <-> host vector copies (synchronous on `stream`).
Fr32* upload(const std::vector<::prooflab::field::Fr>& host, Fr32* device, cudaStream_t stream);
std::vector<::prooflab::field::Fr> download(const Fr32* device, std::size_t n, cudaStream_t stream);

}  // namespace prooflab::gpu::ntt
