// One row of a sparse product (A·w, B·w or C·w of synthesis) over Fr, as the device computes
// it: a per-thread function shared by the kernel (sparse_products_kernel.cu) and the host
// tests (gpu_sparse_products_simulation_test.cpp), which run this very code row by row with
// the emulated carry chain. C++17, host and device.
//
// The matrices are core/r1cs's CSR form (csr_matrix.hpp): 64-bit row offsets, a 32-bit
// column and a 32-bit coefficient id per nonzero, the distinct coefficients in a small table
// whose ids 0 and 1 are +1 and −1. The witness is [inputs..., aux...] in Montgomery form. The
// terms are cheap in the common cases of the porep-like circuit (docs/circuits.md): a zero
// value adds nothing, a one adds its coefficient, a ±1 coefficient adds or subtracts the
// value; only the rest (Poseidon's rows) multiply. Each step is a reduced field operation, so
// the result is the canonical representative, equal bit for bit to r1cs::evaluate's.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gpu/field/fields.cuh"

namespace prooflab::gpu::r1cs {

// core/r1cs/coefficient_table.hpp's fixed ids (device_matrices.cpp checks they agree).
constexpr std::uint32_t kCoeffIdOne = 0;
constexpr std::uint32_t kCoeffIdMinusOne = 1;

// One matrix as the kernel reads it (device or host pointers alike).
struct CsrView {
  const std::uint64_t* row_ptr = nullptr;  // rows + 1 offsets
  const std::uint32_t* cols = nullptr;
  const std::uint32_t* coeff_ids = nullptr;
  const field::Fr32* coeffs = nullptr;
};

// (m·w)[row].
PROOFLAB_HDI field::Fr32 sparse_row(const CsrView& m, const field::Fr32* w, std::uint64_t row) {
  using field::Fr32;
  const Fr32 one = Fr32::one();
  Fr32 acc = Fr32::zero();
  const std::uint64_t end = m.row_ptr[row + 1];
  for (std::uint64_t k = m.row_ptr[row]; k < end; ++k) {
    const Fr32 v = w[m.cols[k]];
    if (v.is_zero()) continue;
    const std::uint32_t id = m.coeff_ids[k];
    if (v == one)
      acc += m.coeffs[id];
    else if (id == kCoeffIdOne)
      acc += v;
    else if (id == kCoeffIdMinusOne)
      acc -= v;
    else
      acc += m.coeffs[id] * v;
  }
  return acc;
}

// The three products of one partition: out[i][row] = (matrix[i]·w)[row] for row < rows.
struct SparseProductsArgs {
  CsrView matrix[3];
  const field::Fr32* witness = nullptr;
  field::Fr32* out[3] = {nullptr, nullptr, nullptr};
  unsigned matrices = 3;  // out[0, matrices) are computed: 2 leaves C out
  std::uint64_t rows = 0;
};

// What thread `row` of matrix `i` does in the kernel.
PROOFLAB_HDI void sparse_products_row(const SparseProductsArgs& args, unsigned i, std::uint64_t row) {
  if (row < args.rows) args.out[i][row] = sparse_row(args.matrix[i], args.witness, row);
}

}  // namespace prooflab::gpu::r1cs
