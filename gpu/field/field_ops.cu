#include "gpu/field/field_ops.hpp"

#include "gpu/cuda_check.hpp"

namespace prooflab::gpu::field {
namespace {

template <class F, FieldOp Op>
__global__ void field_op_kernel(const F* __restrict__ a, const F* __restrict__ b, F* out,
                                std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const F x = a[i];
    F r;
    if constexpr (Op == FieldOp::kAdd) r = x + b[i];
    if constexpr (Op == FieldOp::kSub) r = x - b[i];
    if constexpr (Op == FieldOp::kNeg) r = -x;
    if constexpr (Op == FieldOp::kDbl) r = x.dbl();
    if constexpr (Op == FieldOp::kMul) r = x * b[i];
    if constexpr (Op == FieldOp::kSqr) r = x.sqr();
    if constexpr (Op == FieldOp::kToMont) r = F::to_mont(x);
    if constexpr (Op == FieldOp::kFromMont) r = F::from_mont(x);
    out[i] = r;
  }
}

template <class F, FieldOp Op>
void launch(const F* a, const F* b, F* out, std::size_t n, cudaStream_t stream) {
  constexpr unsigned kThreads = 256;
  const std::size_t blocks = (n + kThreads - 1) / kThreads;
  const unsigned grid = static_cast<unsigned>(blocks < 65535 ? blocks : 65535);
  field_op_kernel<F, Op><<<grid, kThreads, 0, stream>>>(a, b, out, n);
  check_launch(field_op_name(Op));
}

template <class F>
void dispatch(FieldOp op, const F* a, const F* b, F* out, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  switch (op) {
    case FieldOp::kAdd: return launch<F, FieldOp::kAdd>(a, b, out, n, stream);
    case FieldOp::kSub: return launch<F, FieldOp::kSub>(a, b, out, n, stream);
    case FieldOp::kNeg: return launch<F, FieldOp::kNeg>(a, b, out, n, stream);
    case FieldOp::kDbl: return launch<F, FieldOp::kDbl>(a, b, out, n, stream);
    case FieldOp::kMul: return launch<F, FieldOp::kMul>(a, b, out, n, stream);
    case FieldOp::kSqr: return launch<F, FieldOp::kSqr>(a, b, out, n, stream);
    case FieldOp::kToMont: return launch<F, FieldOp::kToMont>(a, b, out, n, stream);
    case FieldOp::kFromMont: return launch<F, FieldOp::kFromMont>(a, b, out, n, stream);
  }
}

}  // namespace

const char* field_op_name(FieldOp op) {
  switch (op) {
    case FieldOp::kAdd: return "field_add";
    case FieldOp::kSub: return "field_sub";
    case FieldOp::kNeg: return "field_neg";
    case FieldOp::kDbl: return "field_dbl";
    case FieldOp::kMul: return "field_mul";
    case FieldOp::kSqr: return "field_sqr";
    case FieldOp::kToMont: return "field_to_mont";
    case FieldOp::kFromMont: return "field_from_mont";
  }
  return "field_op";
}

void apply(FieldOp op, const Fr32* a, const Fr32* b, Fr32* out, std::size_t n,
           cudaStream_t stream) {
  dispatch(op, a, b, out, n, stream);
}
void apply(FieldOp op, const Fp32* a, const Fp32* b, Fp32* out, std::size_t n,
           cudaStream_t stream) {
  dispatch(op, a, b, out, n, stream);
}

}  // namespace prooflab::gpu::field
