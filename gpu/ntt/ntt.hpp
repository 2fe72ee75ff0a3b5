// Number-theoretic transforms over Fr on the device, matching core/poly/ntt.hpp bit for bit:
// natural order in, natural order out (or bit-reversed out, the order sppark's timings use).
// Elements are Fr32 (field/fields.cuh): the CPU's Montgomery layout, so device arrays are
// byte copies of std::vector<field::Fr>. All calls are asynchronous on `stream`; pointers are
// device pointers, 16-byte aligned (the allocator returns 256-byte alignment).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "gpu/memory/device_allocator.hpp"
#include "gpu/ntt/domain.hpp"
#include "gpu/ntt/plan.hpp"

namespace prooflab::gpu::ntt {

enum class Transform {
  kForward,       // coefficients -> evaluations at ω^i            (core: poly::ntt)
  kInverse,       // evaluations -> coefficients, 1/n included     (core: poly::intt)
  kCosetForward,  // coefficients -> evaluations at g·ω^i, g = 7   (core: poly::coset_ntt)
  kCosetInverse,  // evaluations at g·ω^i -> coefficients          (core: poly::coset_intt)
};

const char* transform_name(Transform t);

// Elements of scratch the plan needs: 0 for a single-pass size, else n.
std::size_t scratch_elements(const Domain& d, const PlanOptions& opt = {});

// In place on data[0, n). scratch: scratch_elements() elements the transform may overwrite.
void transform(Transform kind, Fr32* data, Fr32* scratch, const Domain& d, cudaStream_t stream,
               Order order = Order::kNatural, const PlanOptions& opt = {});

// The same with the scratch taken from (and returned to) the allocator in stream order.
void transform(Transform kind, Fr32* data, const Domain& d, memory::DeviceAllocator& alloc,
               cudaStream_t stream, Order order = Order::kNatural, const PlanOptions& opt = {});

// Out of place: in[0, n) is left as it was, the result goes to out (in != out). Needs no
// scratch with one pass, else n elements of scratch (may be null only for one pass).
void transform(Transform kind, const Fr32* in, Fr32* out, Fr32* scratch, const Domain& d,
               cudaStream_t stream, Order order = Order::kNatural, const PlanOptions& opt = {});

inline void ntt(Fr32* data, Fr32* scratch, const Domain& d, cudaStream_t s) {
  transform(Transform::kForward, data, scratch, d, s);
}
inline void intt(Fr32* data, Fr32* scratch, const Domain& d, cudaStream_t s) {
  transform(Transform::kInverse, data, scratch, d, s);
}
inline void coset_ntt(Fr32* data, Fr32* scratch, const Domain& d, cudaStream_t s) {
  transform(Transform::kCosetForward, data, scratch, d, s);
}
inline void coset_intt(Fr32* data, Fr32* scratch, const Domain& d, cudaStream_t s) {
  transform(Transform::kCosetInverse, data, scratch, d, s);
}

// The spec of each kind (for callers that build passes themselves, e.g. the simulator).
TransformSpec spec_for(Transform kind, const TablesView& t, Order order);

}  // namespace prooflab::gpu::ntt
