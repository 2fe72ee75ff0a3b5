// Element-wise field operations over device arrays: what the tests use to compare every
// device operation with the CPU, and what the backend uses for bulk conversions (to and from
// Montgomery form) and pointwise products. Host API; the kernels are in field_ops.cu.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "gpu/field/fields.cuh"

namespace prooflab::gpu::field {

enum class FieldOp {
  kAdd,       // out = a + b
  kSub,       // out = a - b
  kNeg,       // out = -a
  kDbl,       // out = a + a
  kMul,       // out = a·b
  kSqr,       // out = a²
  kToMont,    // out = Montgomery form of the canonical integer a
  kFromMont,  // out = canonical integer of a
};

const char* field_op_name(FieldOp op);

// out[i] = op(a[i], b[i]) for i < n, on `stream`. a, b, out are device pointers (b unused
// by unary ops; out may alias a or b). Throws CudaError on a launch failure.
void apply(FieldOp op, const Fr32* a, const Fr32* b, Fr32* out, std::size_t n, cudaStream_t stream);
void apply(FieldOp op, const Fp32* a, const Fp32* b, Fp32* out, std::size_t n, cudaStream_t stream);

}  // namespace prooflab::gpu::field
