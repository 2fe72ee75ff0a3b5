// a = A·w, b = B·w, c = C·w of one partition on the device, in the QAP layout the H
// computation reads (groth16::synthesize's on the host): rows [0, num_constraints) the
// products, then a[num_constraints + i] = input_i (the input-consistency rows), zeros to the
// domain size. The witness is [inputs..., aux...] on the device (gpu/backend/device_witness).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "gpu/field/fields.cuh"
#include "gpu/r1cs/device_matrices.hpp"

namespace prooflab::gpu::r1cs {

// Queues the products on `stream` into a, b, c of domain_size elements each (device
// memory; c null: C·w is not computed, for a key that folds C's share in, h_basis.hpp);
// witness holds m.columns() values, the first num_inputs the inputs. Throws
// std::invalid_argument when domain_size < m.rows() + num_inputs or num_inputs > m.columns().
void sparse_products(const DeviceMatrices& m, const field::Fr32* witness, std::size_t num_inputs,
                     field::Fr32* a, field::Fr32* b, field::Fr32* c, std::size_t domain_size,
                     cudaStream_t stream);

}  // namespace prooflab::gpu::r1cs
